// What an HTTP answer's body says, for a source's message: the API's error envelope, an HTML page by its title, the
// start of any other body. Pure.
import { redactSecrets } from '../../base/secrets.js';
import { isRecord, parseSourceJson } from './values.js';

/** A problem a source reports inside a response; `transient` ones (rate limits, maintenance) are retried. */
export interface EnvelopeProblem {
  message: string;
  transient?: boolean;
}

export const utf8 = new TextDecoder('utf-8');

/** Whether a body's first byte past white space is `<`: markup, not JSON. */
export function opensWithMarkup(bytes: Uint8Array): boolean {
  for (const byte of bytes) if (byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09) return byte === 0x3c;
  return false;
}

/** A short description of an HTML page: its title, which names the firewall or error page. */
export function htmlPage(text: string): string {
  const found = /<title[^>]*>([^<]{0,1000})/i.exec(text)?.[1];
  const title = found === undefined ? undefined : redactSecrets(found).trim().replace(/\s+/g, ' ').slice(0, 120);
  return title ? `an HTML page ("${title}")` : 'an HTML page';
}

export function looksLikeHtml(contentType: string, text: string): boolean {
  return /html/i.test(contentType) || /^\s*(<!doctype html|<html)/i.test(text);
}

/** The start of a body, for a message about why it could not be read; credentials redacted before the cut. */
export const snippet = (body: string) => {
  const text = redactSecrets(body.slice(0, 4096)).trim();
  return JSON.stringify(text.slice(0, 60) + (text.length > 60 ? '…' : ''));
};

/** Try the envelope on a body that may be JSON; used to explain an HTTP error status. */
function envelopeOf(
  bytes: Uint8Array,
  envelope: ((body: unknown) => EnvelopeProblem | undefined) | undefined,
): { body: unknown; problem?: EnvelopeProblem } {
  try {
    const body = parseSourceJson(utf8.decode(bytes));
    const problem = envelope?.(body) ?? genericEnvelope(body);
    return problem ? { body, problem } : { body };
  } catch {
    return { body: undefined };
  }
}

/** `{"msg": …}`, `{"message": …}` or `{"error": "…"}`: what most APIs put in an error body. */
function genericEnvelope(body: unknown): EnvelopeProblem | undefined {
  if (!isRecord(body)) return undefined;
  for (const key of ['msg', 'message', 'error', 'error_message']) {
    const value = body[key];
    if (typeof value === 'string' && value !== '') return { message: value };
  }
  return undefined;
}

/** What an error status's body says: the API's envelope problem, an HTML page's title, "empty body" or its start. */
export function statusBody(
  bytes: Uint8Array,
  contentType: string,
  envelope: ((body: unknown) => EnvelopeProblem | undefined) | undefined,
): { body: unknown; what: string } {
  const { body, problem } = envelopeOf(bytes, envelope);
  const text = utf8.decode(bytes.subarray(0, 4096));
  const what =
    problem?.message ??
    (looksLikeHtml(contentType, text) ? htmlPage(text) : text.trim() === '' ? 'empty body' : snippet(text));
  return { body, what };
}
