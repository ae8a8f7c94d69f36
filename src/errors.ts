// The one error type of ratefile: a code for the kind of failure, mapped to exit codes only in cli.ts.

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
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options.details ?? [];
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
