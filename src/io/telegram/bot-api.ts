// The Telegram Bot API (https://core.telegram.org/bots/api), one method call at a time: a POST of JSON to
// `<baseUrl>/bot<token>/<method>`, answered `{ ok: true, result }` or `{ ok: false, error_code, description }`.
// The alerts' Telegram channel and the control bot both call it. The token is in the URL: no text made here (an
// error, what a log line quotes) shows it.
import { redact } from '../../base/secrets.js';

export interface BotApi {
  /** `https://api.telegram.org`, or a loopback stand-in in tests. */
  baseUrl: string;
  token: string;
  fetch: typeof globalThis.fetch;
  /** How long one call may take unless the call says otherwise. */
  timeoutMs: number;
}

/** A call that failed: `status` is the HTTP status when the API answered (undefined: no answer). */
export class BotApiError extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
    /** With 429 Too Many Requests: how long Telegram asks us to wait. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

interface Answer {
  ok?: unknown;
  result?: unknown;
  description?: unknown;
  parameters?: { retry_after?: unknown };
}

const causeOf = (error: unknown) => {
  const cause = (error as { cause?: Error }).cause;
  return cause ? `: ${cause.message}` : '';
};

/** Calls `method` with `params`; resolves with the answer's `result`, throws BotApiError (never naming the token). */
export async function callBotApi<T>(
  api: BotApi,
  method: string,
  params: Record<string, unknown>,
  options: { signal?: AbortSignal | undefined; timeoutMs?: number } = {},
): Promise<T> {
  const url = `${api.baseUrl.replace(/\/$/, '')}/bot${api.token}/${method}`;
  const timeout = AbortSignal.timeout(options.timeoutMs ?? api.timeoutMs);
  let response: Response;
  try {
    response = await api.fetch(url, {
      method: 'POST',
      body: JSON.stringify(params),
      headers: { 'Content-Type': 'application/json' },
      signal: options.signal ? AbortSignal.any([timeout, options.signal]) : timeout,
    });
  } catch (error) {
    throw new BotApiError(redact(`${(error as Error).message}${causeOf(error)}`, api.token), undefined);
  }
  const text = await response.text().catch(() => '');
  let answer: Answer | undefined;
  try {
    answer = JSON.parse(text) as Answer;
  } catch {
    answer = undefined;
  }
  if (response.ok && answer?.ok !== false) return answer?.result as T;
  const description = typeof answer?.description === 'string' ? `: ${answer.description.slice(0, 200)}` : '';
  const retryAfter = answer?.parameters?.retry_after;
  throw new BotApiError(
    redact(`HTTP ${response.status}${description}`, api.token),
    response.status,
    typeof retryAfter === 'number' ? retryAfter : undefined,
  );
}
