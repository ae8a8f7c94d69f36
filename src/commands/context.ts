// What every command gets from the CLI: injected dependencies, a logger, and the shared option helpers.
// Light on purpose: every command's registration imports it, so `--version` and `--help` load only this; the config
// loader (zod, both YAML readers) is imported when a command loads a config.
import { relative, resolve } from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { DEFAULT_HOST, defaultConfigFile } from '../base/config/defaults.js';
import { RatefileError } from '../base/errors.js';
import type { Logger, Writer } from '../base/log.js';
import type { Config } from '../model/config.js';
import { registerConfigSecrets, registerEnvSecrets } from '../base/secrets.js';

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

export interface CommandContext {
  deps: CliDeps;
  log: Logger;
  /** Load and validate a config file, relative to the working folder. */
  load(path: string): Promise<Config>;
  /** `--out` if given, else the config's output folder, else ./public. */
  outDir(config: Config | undefined, out: string | undefined): string;
  /** `--port`, else PORT, else the config's server.port, else 8080. */
  portFor(config: Config | undefined, port: number | undefined): number;
  /** A path as the operator would type it: relative to the working folder. */
  shown(path: string): string;
  setExitCode(code: number): void;
}

/**
 * What every command's module (`src/commands/<command>.ts`) exports: `register` adds the command, its options and its
 * help to the program; its action imports what it runs only when it runs.
 */
export interface CommandModule {
  register(program: Command, context: CommandContext): void;
}

export function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new InvalidArgumentError('expected a port number 0..65535');
  return port;
}

export const configOption = () =>
  new Option('-c, --config <path>', 'config file').default(
    defaultConfigFile,
    `RATEFILE_CONFIG, else ${defaultConfigFile}`,
  );

/** RATEFILE_CONFIG, when set, is the default of every command's --config (from the injected env, so tests stay isolated). */
export function applyConfigEnv(program: Command, env: CliDeps['env']): void {
  const path = env.RATEFILE_CONFIG;
  if (!path) return;
  for (const command of program.commands) {
    const option = command.options.find((candidate) => candidate.long === '--config');
    if (!option) continue;
    // commander copied the old default into the command's values when the option was added: replace both.
    option.default(path, `RATEFILE_CONFIG: ${path}`);
    command.setOptionValueWithSource(option.attributeName(), path, 'default');
  }
}

/** A config that is not there: say how to get one. */
async function loadWithHint(path: string, cwd: string): Promise<Config> {
  const { loadConfig } = await import('../io/config/load.js');
  try {
    return await loadConfig(path, cwd);
  } catch (error) {
    if (error instanceof RatefileError && (error.cause as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') {
      throw new RatefileError(error.code, error.message, {
        cause: error,
        details: ['create one here with `ratefile init`, or name yours with --config PATH (or RATEFILE_CONFIG)'],
      });
    }
    throw error;
  }
}
export const outOption = () => new Option('-o, --out <dir>', "output folder (default: the config's output, public/)");
export const portOption = () =>
  new Option('-p, --port <port>', "port to listen on (default: PORT, then the config's server.port, 8080)").argParser(
    parsePort,
  );
export const hostOption = () =>
  new Option(
    '--host <address>',
    `address to listen on (default: the config's server.host, ${DEFAULT_HOST}: this machine only; 0.0.0.0: every interface)`,
  );

export function createContext(deps: CliDeps, log: Logger, setExitCode: (code: number) => void): CommandContext {
  registerEnvSecrets(deps.env);
  return {
    deps,
    log,
    setExitCode,
    // The credentials of the environment and those the config names are never shown, whatever the command prints.
    load: async (path) => {
      const config = await loadWithHint(path, deps.cwd);
      registerConfigSecrets(config, deps.env);
      return config;
    },
    outDir: (config, out) => (out ? resolve(deps.cwd, out) : (config?.output ?? resolve(deps.cwd, 'public'))),
    portFor: (config, port) => port ?? (deps.env.PORT ? parsePort(deps.env.PORT) : (config?.server.port ?? 8080)),
    shown: (path) => relative(deps.cwd, path) || '.',
  };
}
