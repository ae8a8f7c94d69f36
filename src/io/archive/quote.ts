// A signed quote from what is published now: the export's bytes as the archive's newest record has them (the
// service's recorder, or the archive read back by `ratefile quote`), refused while this instance does not publish or
// the published rates are stale, signed with the operator's key. `verifyQuote` is what an engine does (docs/exports.md).
import type { Config } from '../../model/config.js';
import { sha256Hex, type RecordHeader } from '../../pure/archive/record.js';
import {
  quoteMessage,
  quoteOf,
  type QuoteAnswer,
  type QuoteRequest,
  type SignedQuote,
} from '../../pure/archive/quote.js';
import { assessHealth } from '../../pure/status/health.js';
import type { Status } from '../../pure/status/report.js';
import { verifySignature, type SigningKey } from './key.js';

export type QuoteResult = { status: 200; quote: SignedQuote } | { status: number; refused: string };

export interface QuoteInput {
  config: Config;
  request: QuoteRequest & { export?: string };
  /** The newest record, and the bytes of the export it names (undefined: not published). */
  last: RecordHeader | undefined;
  bytes: (file: string) => Buffer | undefined | Promise<Buffer | undefined>;
  key: SigningKey | undefined;
  status: Status | undefined;
  now: Date;
  /** Under `ha:`, this instance's role: only the leader quotes. */
  role?: 'leader' | 'standby';
}

export async function signedQuote(input: QuoteInput): Promise<QuoteResult> {
  const { config, request, last, key, now } = input;
  if (!key) return { status: 503, refused: 'no archive.key: a quote is signed with the operator key, and none is set' };
  if (input.role === 'standby')
    return { status: 503, refused: 'this instance is a standby and publishes nothing: ask the leader' };
  const health = assessHealth(input.status, now);
  if (health.level === 'failing')
    return { status: 503, refused: `the published rates are not current: ${health.reasons.join('; ')}` };
  const template = exportFor(config, request.export);
  if (typeof template === 'string') return { status: 404, refused: template };
  const entry = last?.exports[template.file];
  const bytes = entry && entry.how !== 'gone' ? await input.bytes(template.file) : undefined;
  if (!last || !entry?.sha256 || !bytes) return { status: 503, refused: `${template.file} is not in the archive yet` };
  if (sha256Hex(bytes) !== entry.sha256)
    return {
      status: 503,
      refused: `${template.file} as served is not yet in the archive (its newest record is behind)`,
    };
  const answer: QuoteAnswer = quoteOf(
    request,
    {
      file: template.file,
      text: bytes.toString('utf8'),
      sha256: entry.sha256,
      build: last.build.id,
      record: last.seq,
      published: last.published,
      aliases: template.aliases,
    },
    now,
    config.quote.validForMs,
    key.publicKey,
  );
  if ('refused' in answer) return { status: answer.status, refused: withReason(answer.refused, request, input.status) };
  return { status: 200, quote: { ...answer.fields, signature: key.sign(quoteMessage({ ...answer.fields })) } };
}

/** The export asked, the config's `quote.export`, or the primary one; a private export's name is a secret, never quoted. */
function exportFor(config: Config, asked: string | undefined) {
  const file = asked ?? config.quote.export;
  const templates = config.exports.filter((template) => template.private !== true);
  const found = file
    ? templates.find((template) => template.file === file)
    : (templates.find((t) => t.name === 'parserfile') ?? templates.find((t) => t.markup.isZero()) ?? templates[0]);
  if (!found) return file ? `${file}: no such export (or it is private)` : 'no export to quote from';
  if (!found.file.endsWith('.xml')) return `${found.file}: quotes read an XML export (classic or EREF 1.1)`;
  return found;
}

/** A direction not in the export now: why, as the status of the newest build says. */
function withReason(refused: string, request: QuoteRequest, status: Status | undefined): string {
  const held = status?.heldBack.find((entry) => entry.direction === `${request.from}>${request.to}`);
  return held ? `${refused}: held back: ${held.reason}` : refused;
}

/** What an engine checks of a quote: the signature by the key it trusts, and that it has not expired. */
export function verifyQuote(quote: Readonly<Record<string, string>>, publicKey: string, now: Date): string | undefined {
  if (!quote.signature || !verifySignature(publicKey, quoteMessage(quote), quote.signature))
    return 'the signature does not verify';
  const until = Date.parse(quote.validUntil ?? '');
  if (Number.isNaN(until) || now.getTime() > until) return 'the quote has expired';
  return undefined;
}
