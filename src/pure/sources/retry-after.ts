// Retry-After as a source reads it: delay-seconds or an HTTP date on the source's clock, and the most a source waits
// for one (a server's "come back in 11 days" must not silence a source for days). Pure.
import { age } from '../../base/words.js';

/** The longest Retry-After waited for inside one build; a longer one stops the source until it has passed. */
export const maxInlineWaitMs = 5_000;
/**
 * The longest a source is left unasked because an answer said so (Retry-After): a server's "come back in 11 days"
 * (a misconfigured proxy, a hostile answer) must not withhold its directions for days. Ten minutes honours any real
 * rate limit (they count per minute or per hour and say so in minutes) and costs at most twenty 30 s periods.
 */
export const maxRetryAfterMs = 10 * 60_000;
/** An HTTP date (RFC 9110: `Sun, 06 Nov 1994 08:49:37 GMT`, or the obsolete RFC 850 and asctime forms). */
const httpDate =
  /^(?:[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT|[A-Za-z]+, \d{2}-[A-Za-z]{3}-\d{2} \d{2}:\d{2}:\d{2} GMT|[A-Za-z]{3} [A-Za-z]{3} [ \d]\d \d{2}:\d{2}:\d{2} \d{4})$/;

/**
 * Retry-After as milliseconds from `now` (the source's clock): delay-seconds or an HTTP date, as the server wrote
 * it (the caller caps it at `maxRetryAfterMs`); undefined for anything else.
 */
export function retryAfterMs(header: string | null, now: number): number | undefined {
  if (header === null) return undefined;
  const text = header.trim();
  if (/^\d{1,20}$/.test(text)) return Number(text) * 1000;
  if (!httpDate.test(text)) return undefined;
  // The asctime form names no zone: it is GMT too.
  const date = Date.parse(/GMT$/.test(text) ? text : `${text} GMT`);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** What a message says of a Retry-After longer than the cap. */
export const cappedNote = (asked: number) =>
  ` (Retry-After asks for ${age(asked / 1000)}; a source waits at most ${age(maxRetryAfterMs / 1000)})`;
