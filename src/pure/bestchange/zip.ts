// info.zip's files, bounded before they are read: unpacked within their size limits (by the zip's directory),
// bm_rates.dat's lines counted in the bytes, decoded from windows-1251, and the small `id;name` lists read.
import { unzipSync } from 'fflate';
import { RatefileError, quoteValue } from '../../base/errors.js';

export const required = ['bm_rates.dat', 'bm_cycodes.dat', 'bm_exch.dat'] as const;
const wanted = new Set<string>([...required, 'bm_cities.dat', 'bm_info.dat']);
/**
 * The most rows a feed may have. The real dump of March 2021 has 202,690 and raises a process's RSS by about
 * 75 MB while it is parsed (rows are objects with decimal text); 300,000 such rows stay near the ~100 MB a
 * feed may cost. A feed with more is refused before it is parsed, so one absurd feed cannot take the service's memory.
 */
export const maxFeedRows = 300_000;
/** Unpacked bm_rates.dat: the real one is 8.2 MB (about 40 bytes a row); 24 MB holds 300,000 long 11-field rows. */
export const maxRatesBytes = 24 * 1024 * 1024;
/** Every other file read: the real bm_exch.dat is 10 KB, bm_cycodes.dat 2 KB. */
const maxOtherBytes = 1024 * 1024;
const idText = /^\d{1,9}$/;

export const fail = (message: string) => new RatefileError('E_SOURCE', message);

/** Unpacks the files read, each checked against its size limit by the zip's directory before it is inflated. */
export function unzip(bytes: Uint8Array): Record<string, Uint8Array> {
  try {
    return unzipSync(bytes, {
      filter: (file) => {
        if (!wanted.has(file.name)) return false;
        const limit = file.name === 'bm_rates.dat' ? maxRatesBytes : maxOtherBytes;
        // fflate inflates into a buffer of originalSize and no larger, so a directory that lies cannot get past this.
        const size = Math.max(file.size, file.originalSize);
        if (size > limit)
          throw fail(`${file.name} unpacks to ${size} bytes, more than the ${limit} allowed: refused before unpacking`);
        return true;
      },
    });
  } catch (error) {
    if (error instanceof RatefileError) throw error;
    throw fail(`not a readable zip (${(error as Error).message}; truncated?)`);
  }
}

/** Refuses a bm_rates.dat with more lines than `maxFeedRows`, counted in the bytes before anything is decoded. */
export function checkLineCount(bytes: Uint8Array): void {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let lines = bytes.length > 0 && bytes[bytes.length - 1] !== 10 ? 1 : 0;
  for (let at = buffer.indexOf(10); at !== -1; at = buffer.indexOf(10, at + 1)) {
    if (++lines > maxFeedRows)
      throw fail(
        `bm_rates.dat has more than ${maxFeedRows} lines (the real feed has about 200,000 rows): refused before parsing`,
      );
  }
}

const cp1251 = new TextDecoder('windows-1251');

/** windows-1251 text. Plain ASCII (all of bm_rates.dat in practice) is the same in latin1, which Node decodes natively. */
export function decode(bytes: Uint8Array): string {
  for (let i = 0; i < bytes.length; i++) if (bytes[i]! >= 0x80) return cp1251.decode(bytes);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
}

/** Lines of a file with their 1-based numbers; the last line may lack its newline, CRLF is accepted. */
function* lines(text: string): Generator<[string, number]> {
  let start = 0;
  let number = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    number++;
    const line = text.charCodeAt(end - 1) === 13 ? text.slice(start, end - 1) : text.slice(start, end);
    if (line !== '') yield [line, number];
    start = end + 1;
  }
}

export function idOf(text: string | undefined, file: string, line: number, what: string): number {
  if (text === undefined || !idText.test(text))
    throw fail(`${file} line ${line}: ${what} ${quoteValue(text ?? '')} is not an id`);
  return Number(text);
}

export function readPairs(text: string, file: string): Map<number, string> {
  const map = new Map<number, string>();
  for (const [line, number] of lines(text)) {
    const cut = line.indexOf(';');
    const id = idOf(cut === -1 ? line : line.slice(0, cut), file, number, 'id');
    // bm_exch.dat has more fields after the name; the name itself never holds ';'.
    const rest = cut === -1 ? '' : line.slice(cut + 1);
    const value = rest.split(';', 1)[0] ?? '';
    if (value === '') throw fail(`${file} line ${number}: no name after the id`);
    map.set(id, value);
  }
  return map;
}
