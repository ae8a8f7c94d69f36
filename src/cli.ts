// The `ratefile` command line: commander program with injectable dependencies; errors become exit codes only here.
import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import * as accept from './commands/accept.js';
import * as alert from './commands/alert.js';
import * as archive from './commands/archive.js';
import * as at from './commands/at.js';
import * as build from './commands/build.js';
import * as check from './commands/check.js';
import * as completion from './commands/completion.js';
import { applyConfigEnv, createContext, type CliDeps, type CommandModule } from './commands/context.js';
import * as edge from './commands/edge.js';
import { addExamples } from './commands/examples.js';
import * as explain from './commands/explain.js';
import * as init from './commands/init.js';
import * as maintenance from './commands/maintenance.js';
import * as pause from './commands/pause.js';
import * as probe from './commands/probe.js';
import * as publish from './commands/publish.js';
import * as quote from './commands/quote.js';
import * as resume from './commands/resume.js';
import * as schema from './commands/schema.js';
import * as serve from './commands/serve.js';
import * as start from './commands/start.js';
import * as status from './commands/status.js';
import * as validate from './commands/validate.js';
import { escapeControls, RatefileError, type ErrorCode } from './base/errors.js';
import { createLogger, wantsColour, type LogFormat, type Logger } from './base/log.js';
import { endQuietlyOnClosedPipe } from './base/pipes.js';

export type { CliDeps } from './commands/context.js';

const exitCodes: Record<ErrorCode, number> = {
  E_USAGE: 2,
  E_CONFIG: 2,
  E_SOURCE: 1,
  E_PRICE: 1,
  E_RENDER: 1,
  E_PUBLISH: 1,
};

/**
 * Every command by group, in the order `--help` lists them: the ones a newcomer runs first, then the everyday ones,
 * then what proves what was published, what deploys, and the editor's and shell's setup.
 */
const groups: readonly (readonly [heading: string, commands: readonly CommandModule[]])[] = [
  ['Getting started:', [init, validate, build, start]],
  ['Day to day:', [status, explain, pause, resume, maintenance, accept, check]],
  ['Proving what was published:', [at, archive, quote]],
  ['Deploying:', [serve, publish, edge, probe, alert]],
  ['Setup:', [schema, completion]],
];

const version = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string })
  .version;

function waitForSignal(): Promise<string> {
  return new Promise((resolveSignal) => {
    const stop = (signal: string) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolveSignal(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

function defaultDeps(): CliDeps {
  return {
    stdout: endQuietlyOnClosedPipe(process.stdout),
    stderr: endQuietlyOnClosedPipe(process.stderr),
    env: process.env,
    cwd: process.cwd(),
    now: () => new Date(),
    fetch: globalThis.fetch,
    waitForStop: waitForSignal,
  };
}

export function createProgram(deps: CliDeps, setExitCode: (code: number) => void): Command {
  const program = new Command('ratefile')
    .description(
      'Prices exchange directions from market quotes and publishes the exchanger export files (parserfile.xml, reffile.xml, affiliatefile.xml).',
    )
    .version(version, '-V, --version')
    .option('--debug', 'show stack traces of errors')
    .addOption(
      new Option('--log-format <format>', 'log lines as text or as JSON objects')
        .choices(['text', 'json'])
        .default('text'),
    )
    .option('-q, --quiet', 'log only warnings and errors')
    // A usage error is one line and this hint, not the whole help; each command's help lists these global options too.
    .showHelpAfterError('(add --help for usage)')
    .configureHelp({ showGlobalOptions: true })
    .configureOutput({
      writeOut: (text) => deps.stdout.write(text),
      writeErr: (text) => deps.stderr.write(text),
      // A terminal's width when there is one, a fixed width otherwise so help text is the same everywhere.
      getOutHelpWidth: () => (deps.stdout as { columns?: number }).columns ?? 100,
      getErrHelpWidth: () => (deps.stderr as { columns?: number }).columns ?? 100,
    })
    .exitOverride();

  const log = createLogger(deps.stderr, {
    now: deps.now,
    format: () => (program.opts<{ logFormat: LogFormat }>().logFormat === 'json' ? 'json' : 'text'),
    colour: wantsColour(deps.stderr, deps.env),
    quiet: () => program.opts<{ quiet?: boolean }>().quiet === true,
  });
  const context = createContext(deps, log, setExitCode);
  for (const [heading, modules] of groups) {
    program.commandsGroup(heading);
    for (const command of modules) command.register(program, context);
  }
  // Made now, while the group is still Setup's, so `help [command]` is listed there and not under a group of its own.
  program.helpCommand(true);
  addExamples(program);
  applyConfigEnv(program, deps.env);
  return program;
}

/**
 * Node's process warnings (a dependency's DeprecationWarning, say) are written by Node's own listener as
 * `(node:PID) …` lines, which break `--log-format json`: while the CLI runs they go through the logger instead.
 * Returns the undo, so an in-process run (tests) leaves the process as it found it.
 */
function routeProcessWarnings(log: Logger): () => void {
  const before = process.listeners('warning');
  const onWarning = (warning: Error & { code?: string }) =>
    log.warn(`node: ${warning.name}${warning.code ? ` ${warning.code}` : ''}: ${warning.message}`, {
      event: 'process-warning',
    });
  process.removeAllListeners('warning');
  process.on('warning', onWarning);
  return () => {
    process.off('warning', onWarning);
    for (const listener of before) process.on('warning', listener);
  };
}

/**
 * A listen error (`start`, `serve`) as what the operator can do about it; undefined for any other error (an EACCES
 * from writing a file is not about the port).
 */
function listenProblem(error: unknown): string | undefined {
  const system = error as (NodeJS.ErrnoException & { address?: string; port?: number }) | undefined;
  if (system?.syscall !== 'listen') return undefined;
  const host = system.address?.includes(':') ? `[${system.address}]` : system.address;
  const where = `port ${system.port} on ${host}`;
  const choose = 'choose another with --port or PORT (or server.port in the config)';
  if (system.code === 'EADDRINUSE') return `${where} is in use: stop the other process or ${choose}`;
  if (system.code === 'EACCES')
    return `${where} is not open to this user (ports below 1024 need privileges): ${choose}`;
  if (system.code === 'EADDRNOTAVAIL')
    return `cannot listen on ${host}: no interface of this machine has that address; choose another with --host (or server.host in the config)`;
  return undefined;
}

/** `ratefile __complete WORD…`: the candidates one a line, exit 0, or exit 3 for file names; nothing on any error. */
async function completeWords(program: Command, words: readonly string[], deps: CliDeps): Promise<number> {
  try {
    const { complete, wantsFiles } = await import('./commands/complete.js');
    const found = await complete(program, words, deps.cwd);
    if (found.files) return wantsFiles;
    deps.stdout.write(found.candidates.map((candidate) => `${candidate}\n`).join(''));
  } catch {
    // A completion that fails offers nothing: the operator's line is not the place for a stack trace.
  }
  return 0;
}

/** Run the CLI; resolves with the process exit code: 0 ok, 1 failure, 2 usage or config error. */
export async function run(argv: readonly string[], overrides: Partial<CliDeps> = {}): Promise<number> {
  const deps = { ...defaultDeps(), ...overrides };
  let exitCode = 0;
  const program = createProgram(deps, (code) => {
    exitCode = code;
  });
  const warningLog = createLogger(deps.stderr, {
    now: deps.now,
    format: () => (program.opts<{ logFormat?: string }>().logFormat === 'json' ? 'json' : 'text'),
    colour: wantsColour(deps.stderr, deps.env),
  });
  // The completion scripts' question (commands/complete.ts): answered without commander parsing the words, in silence.
  if (argv[2] === '__complete') return completeWords(program, argv.slice(3), deps);
  const restoreWarnings = routeProcessWarnings(warningLog);
  try {
    await program.parseAsync([...argv]);
    return exitCode;
  } catch (caught) {
    // A port that cannot be bound is the operator's to fix: said as what to do, in either log format, exit 1.
    const listening = listenProblem(caught);
    const error = listening === undefined ? caught : new RatefileError('E_PUBLISH', listening);
    if (error instanceof CommanderError) {
      // Help and version end in a CommanderError with code 0; anything else is a usage error.
      return error.exitCode === 0 ? 0 : 2;
    }
    const debug = argv.includes('--debug');
    // With --log-format json, the last words are a JSON line too, so a log shipper sees every line whole.
    if (program.opts<{ logFormat?: string }>().logFormat === 'json') {
      const details = error instanceof RatefileError ? error.details : [];
      createLogger(deps.stderr, { now: deps.now, format: () => 'json' }).error(
        error instanceof Error ? error.message : String(error),
        { ...(error instanceof RatefileError ? { code: error.code } : {}), details },
      );
      return error instanceof RatefileError ? exitCodes[error.code] : 1;
    }
    // Lines are made here; any control character inside one (from a value it quotes) is escaped.
    const print = (text: string) => deps.stderr.write(`${text.split('\n').map(escapeControls).join('\n')}\n`);
    const line = (text: string) => deps.stderr.write(`${escapeControls(text)}\n`);
    if (error instanceof RatefileError) {
      line(`ratefile: ${error.message}`);
      for (const detail of error.details) line(`  ${detail}`);
      if (debug && error.stack) print(error.stack);
      return exitCodes[error.code];
    }
    if (debug && error instanceof Error && error.stack) print(`ratefile: unexpected error: ${error.stack}`);
    else line(`ratefile: unexpected error: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    restoreWarnings();
  }
}
