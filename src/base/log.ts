// A tiny logger: one line per event, as text (coloured only on a terminal, never with NO_COLOR) or as JSON for log shippers.
import { escapeControls } from './errors.js';
import { redactSecrets, redactValue } from './secrets.js';

export interface Writer {
  write(text: string): unknown;
}

export type LogFields = Record<string, unknown>;

export interface Logger {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

export type LogFormat = 'text' | 'json';

export interface LoggerOptions {
  now?: () => Date;
  /** Read at every line, so a `--log-format` parsed after the logger was made still applies. */
  format?: () => LogFormat;
  colour?: boolean;
  /** Read at every line (`--quiet`): true drops info lines, never warnings or errors. */
  quiet?: () => boolean;
}

const colours: Record<string, string> = { info: '\u001b[36m', warn: '\u001b[33m', error: '\u001b[31m' };

export function createLogger(out: Writer, options: LoggerOptions = {}): Logger {
  const now = options.now ?? (() => new Date());
  const line = (level: 'info' | 'warn' | 'error', text: string, fields: LogFields = {}) => {
    const time = now().toISOString();
    // The safety net for credentials: whatever a message or field quotes, no known secret or token-like value is written.
    const message = redactSecrets(text);
    if (options.format?.() === 'json') {
      // JSON escapes C0 itself; C1 and DEL are escaped too, so reading the log in a terminal is safe.
      out.write(`${escapeControls(JSON.stringify({ time, level, msg: message, ...redactValue(fields) }))}\n`);
    } else {
      const shown = options.colour ? `${colours[level]}${level}\u001b[0m` : level;
      // One event, one line: whatever a message quotes, its control characters are escaped.
      out.write(`${time} ${shown} ${escapeControls(message)}\n`);
    }
  };
  return {
    info: (message, fields) => {
      if (!options.quiet?.()) line('info', message, fields);
    },
    warn: (message, fields) => line('warn', message, fields),
    error: (message, fields) => line('error', message, fields),
  };
}

/** Colour only for a terminal, and never when NO_COLOR is set (https://no-color.org). */
export function wantsColour(out: Writer, env: Record<string, string | undefined>): boolean {
  return (out as { isTTY?: boolean }).isTTY === true && (env.NO_COLOR ?? '') === '';
}
