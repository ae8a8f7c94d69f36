// What `ratefile at` runs (registered in at.ts): the record in force at a moment (the newest whose files were in
// place by then), each export rebuilt from it and checked against its SHA-256, the direction's items, the quotes and
// margin the build priced it from, and whether the record verifies.
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { escapeControls, RatefileError } from '../base/errors.js';

/** Each line's control characters escaped, the line breaks kept: the lines come from code, never from values. */
export const shownLines = (text: string) => text.split('\n').map(escapeControls).join('\n');
import { redactSecrets } from '../base/secrets.js';
import { age, directionName, percent } from '../base/words.js';
import { Decimal } from '../base/decimal.js';
import type { Config } from '../model/config.js';
import { readArchive } from '../io/archive/archive.js';
import { ArchiveReader, type RecordAt } from '../io/archive/reader.js';
import { recordProblems } from '../io/archive/verify.js';
import { readItems } from '../pure/archive/items.js';
import type { StateDirection, StateQuote } from '../pure/archive/state.js';
import type { CommandContext } from './context.js';
import { findDirection } from './explain-action.js';

export interface AtOptions {
  config: string;
  export?: string;
  city?: string;
  out?: string;
  json?: boolean;
}

/** `now`, or a time Date.parse reads (an ISO time; without an offset, local time). */
export function parseTime(text: string, now: Date): Date {
  if (text === 'now') return now;
  const time = Date.parse(text);
  if (Number.isNaN(time))
    throw new RatefileError(
      'E_USAGE',
      `time: expected an ISO time like "2026-12-02T14:03:00Z" or "now", got ${JSON.stringify(text.slice(0, 40))}`,
    );
  return new Date(time);
}

export async function archiveAt(
  context: CommandContext,
  timeText: string,
  from: string | undefined,
  to: string | undefined,
  options: AtOptions,
): Promise<void> {
  const time = parseTime(timeText, context.deps.now());
  const config = await context.load(options.config);
  if ((from === undefined) !== (to === undefined) || (from === undefined && !options.export))
    throw new RatefileError('E_USAGE', 'expected FROM TO (a direction), or --export FILE (the file served then)');
  const reader = await readArchive(config, context.deps.env);
  try {
    const at = await reader.recordAt(time.getTime());
    if (!at) {
      const first = reader.first;
      throw new RatefileError(
        'E_USAGE',
        first
          ? `no record at ${time.toISOString()}: the archive starts at ${first.published}`
          : 'the archive has no records yet',
      );
    }
    if (from === undefined) await writeExport(context, reader, at, options);
    else await showDirection(context, config, reader, at, time, [from, to!], options);
  } finally {
    await reader.store.close();
  }
}

async function writeExport(
  context: CommandContext,
  reader: ArchiveReader,
  at: RecordAt,
  options: AtOptions,
): Promise<void> {
  const file = options.export!;
  const bytes = await reader.stream(at, file);
  if (!bytes)
    throw new RatefileError('E_USAGE', `${file} was not published at that moment (record ${at.record.header.seq})`);
  if (options.out) await writeFile(resolve(context.deps.cwd, options.out), bytes);
  // The exact bytes: a process's stdout takes a Buffer as it is.
  else (context.deps.stdout.write as unknown as (chunk: Buffer) => unknown).call(context.deps.stdout, bytes);
  context.log.info(
    `${file}: ${bytes.length} bytes as served from ${at.record.header.published} (record ${at.record.header.seq}, build ${at.record.header.build.id}), SHA-256 checked`,
  );
}

interface Found {
  verifies: string[];
  line: StateDirection | undefined;
  quotes: StateQuote[];
  exports: { file: string; sha256: string; items: string[] }[];
}

async function showDirection(
  context: CommandContext,
  config: Config,
  reader: ArchiveReader,
  at: RecordAt,
  time: Date,
  [fromCode, toCode]: [string, string],
  options: AtOptions,
): Promise<void> {
  const from = fromCode.toUpperCase();
  const to = toCode.toUpperCase();
  const id = idOf(config, from, to);
  const state = await reader.state(at);
  const line = state?.directions.get(id);
  const quotes = (line?.chain ?? []).flatMap((step) => {
    const quote = state?.quotes.get(step.split(' ').slice(0, 2).join(' '));
    return quote ? [quote] : [];
  });
  const files = ArchiveReader.exportsOf(at.record.header).filter((file) => !options.export || file === options.export);
  const codes = (code: string, file: string) => {
    const template = config.exports.find((e) => e.file === file);
    return new Set([code, template?.aliases[code] ?? code]);
  };
  const exports: Found['exports'] = [];
  for (const file of files) {
    const bytes = await reader.stream(at, file);
    if (!bytes) continue;
    const items = readItems(bytes.toString('utf8')).filter(
      (item) =>
        codes(from, file).has(item.from) &&
        codes(to, file).has(item.to) &&
        (!options.city || item.fields.city === options.city.toUpperCase()),
    );
    exports.push({ file, sha256: at.record.header.exports[file]!.sha256!, items: items.map((item) => item.text) });
  }
  const previous = at.records[at.index - 1]?.header;
  const verifies = await recordProblems(reader.store, at.record, at.index === 0, previous, {});
  const found: Found = { verifies, line, quotes, exports };
  const write = (text: string) => context.deps.stdout.write(shownLines(redactSecrets(text)));
  if (options.json)
    write(
      `${JSON.stringify({ time: time.toISOString(), direction: id, record: recordFacts(at, verifies), ...found }, null, 2)}\n`,
    );
  else write(`${atLines(at, time, directionName(from, to), found).join('\n')}\n`);
}

/** The direction's id as the archive keeps it: the config's codes (an alias named is undone when the config knows it). */
function idOf(config: Config, from: string, to: string): string {
  try {
    return findDirection(config, from, to).id;
  } catch {
    return `${from}>${to}`;
  }
}

const recordFacts = (at: RecordAt, problems: string[]) => ({
  seq: at.record.header.seq,
  segment: at.record.segment,
  published: at.record.header.published,
  build: at.record.header.build,
  signedBy: at.record.header.key ?? null,
  verifies: problems.length === 0,
  problems,
});

function atLines(at: RecordAt, time: Date, name: string, found: Found): string[] {
  const { header } = at.record;
  const built = Date.parse(header.at);
  const lines = [
    `${name} at ${time.toISOString()}: served from record ${header.seq} (segment ${at.record.segment})`,
    `  build ${header.build.id}, files in place ${header.published}${header.build.config ? `, config ${header.build.config}` : ''}${header.build.instance ? `, instance ${header.build.instance}` : ''}`,
    found.verifies.length === 0
      ? `  record: verifies (its hash${at.index > 0 ? `, its link to record ${header.seq - 1}` : ''}, its blobs${header.sig ? `, its signature by ${header.key}` : '; not signed'})`
      : `  record: DOES NOT VERIFY: ${found.verifies.join('; ')}`,
  ];
  const { line } = found;
  if (!line) lines.push(`Not in that build's directions (no such direction then, or not in the config)`);
  else if (line.w) lines.push(`Held back by every export (${line.w}): ${line.why ?? ''}`);
  else {
    lines.push('Quotes at that build:');
    for (const step of line.chain ?? []) {
      const [source, pair, side] = step.split(' ');
      const quote = found.quotes.find((q) => q.q === `${source} ${pair}`);
      const old = quote ? `, ${age((built - Date.parse(quote.t)) / 1000)} old at the build (${quote.t})` : '';
      lines.push(`  ${pair} from ${source}: bid ${quote?.bid ?? '?'}, ask ${quote?.ask ?? '?'}${old}; ${side} taken`);
    }
    lines.push(`Market ${line.m} (in:out, the side worse for the client at each step)`);
    lines.push(
      line.compete
        ? `Compete: ${line.compete}; published ${line.r}`
        : `Margin ${percent(new Decimal(line.margin ?? '0'))}: published ${line.r}`,
    );
  }
  for (const entry of found.exports) {
    lines.push(`${entry.file} (SHA-256 ${entry.sha256}, rebuilt and checked):`);
    if (entry.items.length === 0) lines.push('  not in it');
    for (const item of entry.items)
      lines.push(
        ...item
          .split('\n')
          .filter((l) => l.trim() !== '')
          .map((l) => `  ${l.trimEnd()}`),
      );
  }
  return lines;
}
