// The `ratefile` command line: commander program with injectable dependencies; errors become exit codes only here.
import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { registerBuild } from './commands/build.js';
import { registerCheck } from './commands/check.js';
import { registerCompletion } from './commands/completion.js';
import { registerExplain } from './commands/explain.js';
import { registerInit } from './commands/init.js';
import { applyConfigEnv, createContext, type CliDeps } from './commands/context.js';
import { registerOperate } from './commands/operate.js';
import { registerPublish } from './commands/publish.js';
import { registerSchema } from './commands/schema.js';
import { registerServe, registerStart } from './commands/serve.js';
import { registerValidate } from './commands/validate.js';
import { RatefileError, type ErrorCode } from './errors.js';
import { createLogger, wantsColour, type LogFormat } from './log.js';

export type { CliDeps } from './commands/context.js';

const exitCodes: Record<ErrorCode, number> = { E_USAGE: 2, E_CONFIG: 2, E_SOURCE: 1, E_PRICE: 1, E_RENDER: 1, E_PUBLISH: 1 };

const version = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

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
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    now: () => new Date(),
    fetch: globalThis.fetch,
    waitForStop: waitForSignal,
  };
}

export function createProgram(deps: CliDeps, setExitCode: (code: number) => void): Command {
  const program = new Command('ratefile')
    .description('Prices exchange directions from market quotes and publishes the exchanger export files (parserfile.xml, reffile.xml, affiliatefile.xml).')
    .version(version, '-V, --version')
    .option('--debug', 'show stack traces of errors')
    .addOption(new Option('--log-format <format>', 'log lines as text or as JSON objects').choices(['text', 'json']).default('text'))
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
  for (const register of [registerBuild, registerServe, registerStart, registerSchema, registerOperate, registerPublish]) register(program, context);
  registerCheck(program, context);
  registerExplain(program, context);
  registerInit(program, context);
  registerValidate(program, context);
  registerCompletion(program, context);
  applyConfigEnv(program, deps.env);
  return program;
}

/** Run the CLI; resolves with the process exit code: 0 ok, 1 failure, 2 usage or config error. */
export async function run(argv: readonly string[], overrides: Partial<CliDeps> = {}): Promise<number> {
  const deps = { ...defaultDeps(), ...overrides };
  let exitCode = 0;
  const program = createProgram(deps, (code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync([...argv]);
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version end in a CommanderError with code 0; anything else is a usage error.
      return error.exitCode === 0 ? 0 : 2;
    }
    const debug = argv.includes('--debug');
    if (error instanceof RatefileError) {
      deps.stderr.write(`ratefile: ${error.message}\n`);
      for (const line of error.details) deps.stderr.write(`  ${line}\n`);
      if (debug && error.stack) deps.stderr.write(`${error.stack}\n`);
      return exitCodes[error.code];
    }
    const system = error as NodeJS.ErrnoException;
    if (system.code === 'EADDRINUSE' || system.code === 'EACCES') {
      deps.stderr.write(`ratefile: cannot listen: ${system.message}\n`);
      return 1;
    }
    deps.stderr.write(`ratefile: unexpected error: ${error instanceof Error ? (debug ? error.stack : error.message) : String(error)}\n`);
    return 1;
  }
}
