// The one error type of ratefile: a code for the kind of failure, mapped to exit codes only in cli.ts.
import { redactSecrets } from './secrets.js';

export type ErrorCode =
  | 'E_USAGE' // bad command line
  | 'E_CONFIG' // config or template file invalid
  | 'E_SOURCE' // a rate source failed or returned something unusable
  | 'E_PRICE' // a direction cannot be priced
  | 'E_RENDER' // an export cannot be rendered
  | 'E_PUBLISH'; // files cannot be written

export class RatefileError extends Error {
  override readonly name = 'RatefileError';
  readonly code: ErrorCode;
  /** Extra lines shown under the message, e.g. every problem found in a config file. */
  readonly details: readonly string[];

  constructor(code: ErrorCode, message: string, options: { cause?: unknown; details?: readonly string[] } = {}) {
    // Messages quote sources' answers and config values: no credential is kept in one, wherever it goes next.
    super(redactSecrets(message), options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = (options.details ?? []).map(redactSecrets);
  }
}

export function isRatefileError(error: unknown, code?: ErrorCode): error is RatefileError {
  return error instanceof RatefileError && (code === undefined || error.code === code);
}

/** A one-line description of any thrown value, for logs. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/** `describeError`, then a RatefileError's details (a config's problems) after `lead`, joined by "; ": one line. */
export function errorLine(error: unknown, lead = ' — '): string {
  const details =
    error instanceof RatefileError && error.details.length > 0 ? `${lead}${error.details.join('; ')}` : '';
  return describeError(error) + details;
}

// C0 and C1 controls (ESC, BEL, CR, LF, CSI…), DEL, the Unicode line separators and the bidirectional
// formatting characters (U+202E RIGHT-TO-LEFT OVERRIDE and kin): never written raw to a terminal, a log or a page,
// or a value could forge a line ("ratefile: all good"), drive the terminal or show its text reversed.
const controls = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;
const oneControl = new RegExp(controls.source);

/** Whether `text` holds a character `escapeControls` would escape: refused where a value is written raw (a recipe). */
export const hasControls = (text: string): boolean => oneControl.test(text);

const escapeControl = (character: string) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** `text` with every control character written as `\u001b`; the safety net of the CLI, the text log and the dashboard. */
export function escapeControls(text: string): string {
  return text.replace(controls, escapeControl);
}

/**
 * A JSON text with the characters of `escapeControls` that JSON.stringify leaves raw (DEL, C1, the line separators,
 * the bidirectional formatting characters) written as JSON escapes; C0 is escaped by JSON itself, and the layout's
 * own newlines stay.
 */
export function escapeJsonControls(json: string): string {
  return json.replace(jsonControls, escapeControl);
}
const jsonControls = /[\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

/** Longest value quoted whole; a longer one is cut and its length given, so a huge value cannot flood a message. */
export const MAX_QUOTED_LENGTH = 200;

/** A value from a config, a source or the command line, quoted for a message or log line, JSON-style; credentials redacted before the cut. */
export function quoteValue(text: string): string {
  const value = redactSecrets(text);
  if (value.length <= MAX_QUOTED_LENGTH) return escapeControls(JSON.stringify(value));
  return `${escapeControls(JSON.stringify(value.slice(0, MAX_QUOTED_LENGTH))).slice(0, -1)}…" (${value.length} characters)`;
}
