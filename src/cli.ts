// The `ratefile` command line: commander program with injectable dependencies; errors become exit codes only here.
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { build } from './build.js';
import { loadConfig, defaultConfigFile } from './config/load.js';
import { configJsonSchema, toJsonSchema } from './config/schema.js';
import { problemLines, runCycle, summarize } from './cycle.js';
import { RatefileError, type ErrorCode } from './errors.js';
import { templateSchema } from './exports/template.js';
import { createLogger, type Writer } from './log.js';
import type { Config } from './model.js';
import { publishFiles } from './publish.js';
import { createExportServer, listen } from './server.js';
import { startService } from './service.js';

export interface CliDeps {
  stdout: Writer;
  stderr: Writer;
  env: Record<string, string | undefined>;
  cwd: string;
  now: () => Date;
  fetch: typeof globalThis.fetch;
  /** Resolves with the signal's name when the process is asked to stop. */
  waitForStop: () => Promise<string>;
}

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

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new InvalidArgumentError('expected a port number 0..65535');
  return port;
}

const configOption = () => new Option('-c, --config <path>', 'config file').default(defaultConfigFile);
const outOption = () => new Option('-o, --out <dir>', "output folder (default: the config's output, public/)");
const portOption = () => new Option('-p, --port <port>', "port to listen on (default: PORT, then the config's server.port, 8080)").argParser(parsePort);
const hostOption = () => new Option('--host <address>', "address to listen on (default: the config's server.host, 0.0.0.0)");

interface ServeOptions {
  config: string;
  out?: string;
  port?: number;
  host?: string;
}

export function createProgram(deps: CliDeps, setExitCode: (code: number) => void): Command {
  const log = createLogger(deps.stderr);
  const load = (path: string): Promise<Config> => loadConfig(path, deps.cwd);
  const outDir = (config: Config | undefined, out: string | undefined) => (out ? resolve(deps.cwd, out) : (config?.output ?? resolve(deps.cwd, 'public')));
  const portFor = (config: Config | undefined, port: number | undefined) =>
    port ?? (deps.env.PORT ? parsePort(deps.env.PORT) : (config?.server.port ?? 8080));
  const shown = (path: string) => relative(deps.cwd, path) || '.';

  const program = new Command('ratefile')
    .description('Prices exchange directions from market quotes and publishes the exchanger export files (parserfile.xml, reffile.xml, affiliatefile.xml).')
    .version(version, '-V, --version')
    .option('--debug', 'show stack traces of errors')
    .showHelpAfterError()
    .configureOutput({
      writeOut: (text) => deps.stdout.write(text),
      writeErr: (text) => deps.stderr.write(text),
      // A terminal's width when there is one, a fixed width otherwise so help text is the same everywhere.
      getOutHelpWidth: () => (deps.stdout as { columns?: number }).columns ?? 100,
      getErrHelpWidth: () => (deps.stderr as { columns?: number }).columns ?? 100,
    })
    .exitOverride();

  program
    .command('build')
    .description('price every direction once and write the exports')
    .addOption(configOption())
    .addOption(outOption())
    .option('--dry-run', 'print the files that would be written instead of writing them')
    .action(async (options: { config: string; out?: string; dryRun?: boolean }) => {
      const config = await load(options.config);
      for (const warning of config.warnings) log.warn(warning);
      const dir = outDir(config, options.out);
      let failing: boolean;
      if (options.dryRun) {
        const result = await build(config, { now: deps.now, fetch: deps.fetch });
        for (const line of problemLines(result)) log.warn(line);
        for (const file of result.files) {
          deps.stdout.write(`==> ${shown(resolve(dir, file.file))} (${file.bytes.length} bytes) <==\n`);
          deps.stdout.write(file.bytes.toString('utf8'));
        }
        failing = result.report.sources.some((source) => !source.ok);
      } else {
        const cycle = await runCycle(config, dir, { now: deps.now, fetch: deps.fetch });
        for (const line of problemLines(cycle.build)) log.warn(line);
        log.info(`build: ${summarize(cycle)} → ${shown(dir)}`);
        failing = cycle.build.report.sources.some((source) => !source.ok);
      }
      // The files are written either way: directions of a failing source are left out of them.
      setExitCode(failing ? 1 : 0);
    });

  program
    .command('serve')
    .description('serve the output folder: only the .xml exports, as application/xml, with ETag and 304')
    .addOption(configOption())
    .addOption(outOption())
    .addOption(portOption())
    .addOption(hostOption())
    .action(async (options: ServeOptions) => {
      const config = options.out ? undefined : await load(options.config);
      const dir = outDir(config, options.out);
      const server = createExportServer(dir);
      const port = await listen(server, portFor(config, options.port), options.host ?? config?.server.host ?? '0.0.0.0');
      log.info(`serving ${shown(dir)} at http://${options.host ?? 'localhost'}:${port}/`);
      const signal = await deps.waitForStop();
      log.info(`${signal}: stopping`);
      await new Promise<void>((resolveClose) => {
        server.close(() => resolveClose());
        server.closeAllConnections();
      });
      setExitCode(0);
    });

  program
    .command('start')
    .description('build now, rebuild on the schedule and serve, in one process')
    .addOption(configOption())
    .addOption(outOption())
    .addOption(portOption())
    .addOption(hostOption())
    .action(async (options: ServeOptions) => {
      const config = await load(options.config);
      for (const warning of config.warnings) log.warn(warning);
      const service = await startService({
        config,
        loadConfig: () => load(options.config),
        outDir: outDir(config, options.out),
        port: portFor(config, options.port),
        host: options.host ?? config.server.host,
        log,
        deps: { now: deps.now, fetch: deps.fetch },
      });
      const signal = await deps.waitForStop();
      log.info(`${signal}: finishing the running build, then stopping`);
      await service.stop();
      log.info('stopped');
      setExitCode(0);
    });

  program
    .command('schema')
    .description('print the JSON Schema of the config file (or of an export template) for editors')
    .option('--template', 'print the schema of export templates instead')
    .action((options: { template?: boolean }) => {
      const schema = options.template ? toJsonSchema(templateSchema) : configJsonSchema();
      deps.stdout.write(`${JSON.stringify(schema, null, 2)}\n`);
      setExitCode(0);
    });

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
    const listen = error as NodeJS.ErrnoException;
    if (listen.code === 'EADDRINUSE' || listen.code === 'EACCES') {
      deps.stderr.write(`ratefile: cannot listen: ${listen.message}\n`);
      return 1;
    }
    deps.stderr.write(`ratefile: unexpected error: ${error instanceof Error ? (debug ? error.stack : error.message) : String(error)}\n`);
    return 1;
  }
}
