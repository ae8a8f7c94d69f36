// The commands the control bot runs (src/service/control/), in this process: `status`, `explain`, `at`, `pause`,
// `resume`, `accept` and `maintenance`, each the CLI command itself (registered from its module, run with the config file
// `start` runs), so a command from Telegram changes exactly the files the CLI command changes and answers in its
// words. Its output is collected instead of printed; an error is said as `ratefile` says it.
import { Command, CommanderError } from 'commander';
import { escapeControls, RatefileError } from '../base/errors.js';
import { createLogger } from '../base/log.js';
import { redactSecrets } from '../base/secrets.js';
import type { CommandRunner } from '../service/control/context.js';
import * as accept from './accept.js';
import * as at from './at.js';
import { type CliDeps, type CommandModule, createContext } from './context.js';
import * as explain from './explain.js';
import * as maintenance from './maintenance.js';
import * as pause from './pause.js';
import * as resume from './resume.js';
import * as status from './status.js';

/** What the bot may run. */
const runnable: readonly CommandModule[] = [status, explain, at, pause, resume, accept, maintenance];

/** A runner of `ratefile <command> --config <configFile> …` with `deps` (the clock, fetch, environment of `start`). */
export function controlRunner(deps: CliDeps, configFile: string): CommandRunner {
  return async ([name, ...args]) => {
    let text = '';
    const sink = { write: (chunk: string) => ((text += chunk), true) };
    let code = 0;
    const program = new Command('ratefile')
      .exitOverride()
      .configureOutput({ writeOut: (chunk) => sink.write(chunk), writeErr: (chunk) => sink.write(chunk) });
    const runDeps: CliDeps = {
      ...deps,
      stdout: sink,
      stderr: sink,
      waitForStop: () => Promise.reject(new Error('the control bot runs no command that waits')),
    };
    const log = createLogger(sink, { now: deps.now, format: () => 'text' });
    const context = createContext(runDeps, log, (exit) => (code = exit));
    for (const command of runnable) command.register(program, context);
    try {
      await program.parseAsync(['node', 'ratefile', name ?? 'help', `--config=${configFile}`, ...args]);
      return { code, text, failed: false };
    } catch (error) {
      // commander has written its usage error already.
      if (error instanceof CommanderError) return { code: 2, text, failed: true };
      const said =
        error instanceof RatefileError
          ? [`ratefile: ${error.message}`, ...error.details.map((detail) => `  ${detail}`)]
          : [`ratefile: unexpected error: ${error instanceof Error ? error.message : String(error)}`];
      const lines = said.map((line) => escapeControls(redactSecrets(line)));
      const usage = error instanceof RatefileError && (error.code === 'E_USAGE' || error.code === 'E_CONFIG');
      return { code: usage ? 2 : 1, text: `${text}${lines.join('\n')}\n`, failed: true };
    }
  };
}
