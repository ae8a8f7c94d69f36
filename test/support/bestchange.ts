// BestChange dumps for tests: the real one (test/fixtures/bestchange, see its README) and synthetic ones zipped with fflate.
import { inflateRawSync } from 'node:zlib';
import { zip, zipSync } from 'fflate';
import { encodeCp1251 } from './cp1251.js';
import { repoRoot } from './process.js';

export const realDump = `${repoRoot}test/fixtures/bestchange/info-2021-03-25.zip`;

/** A dump as BestChange would zip it: each file windows-1251, CRLF or LF as given. */
export function dump(files: Record<string, string | undefined>): Uint8Array {
  const entries: Record<string, Uint8Array> = {};
  for (const [name, text] of Object.entries(files)) if (text !== undefined) entries[name] = encodeCp1251(text);
  return zipSync(entries);
}

export const base = {
  'bm_cycodes.dat': '1;SBERRUB\n2;BTC\n3;CASHUSD\n',
  'bm_exch.dat': '10;Обменник;;0;100\n20;FastSwap;;0;200\n30;Third;;0;300\n',
  'bm_cities.dat': '1;Moscow\n2;Владивосток\n3;Нижний Тагил\n',
  'bm_info.dat': 'last_update=12:00:00, 21 ноября\ncurrent_version=2.02\n',
  // from;to;exchanger;give;get;reserve;reviews;unused;min;max;city
  'bm_rates.dat': [
    '2;1;10;1;5000000;120000000;0.15;0;0.001;2;0',
    '2;1;20;1;5100000.5;900000;1.20;0;0.01;1;0',
    '2;1;30;1;5100000.49;5000000;0.3;0;0.005;3;0',
    '1;3;10;95.5;1;20000;0.15;0;100000;1000000;1',
    '1;3;20;94.1;1;50000;0.15;0;50000;2000000;1',
    '1;3;30;93;1;70000;0.15;0;50000;2000000;2',
    '1;3;30;96;1;70000;0.15;0;50000;2000000;3',
  ].join('\r\n'),
};

/** The zip's files by name, read without fflate: end of central directory → central directory → inflateRaw. */
export function unzipByHand(zip: Buffer): Map<string, Buffer> {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const files = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    const method = zip.readUInt16LE(at + 10);
    const size = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.toString('latin1', at + 46, at + 46 + nameLength);
    const dataAt = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(dataAt, dataAt + size);
    files.set(name, method === 0 ? data : inflateRawSync(data));
    at += 46 + nameLength + extraLength + commentLength;
  }
  return files;
}

/**
 * A small field in the 11-field layout: BTC → SBERRUB offered at 4,960,000 (Alpha), 4,950,000 (Beta) and
 * 4,940,000.5 (Gamma); SBERRUB → CASHUSD at 91 (Alpha) and 91.5 (Beta) RUB per USD in Moscow, 91.2 (Gamma) in St Petersburg.
 */
export function competeDump(): Buffer {
  return Buffer.from(
    dump({
      ...base,
      'bm_exch.dat': '10;Alpha;;0;1\n20;Beta;;0;1\n30;Gamma;;0;1\n',
      'bm_cities.dat': '1;Moscow\n2;Saint Petersburg\n',
      'bm_rates.dat': [
        // from;to;exchanger;give;get;reserve;reviews;unused;min;max;city — 1 SBERRUB, 2 BTC, 3 CASHUSD
        '2;1;10;1;4960000;9000000;0.1;0;0.001;2;0',
        '2;1;20;1;4950000;9000000;0.1;0;0.001;2;0',
        '2;1;30;1;4940000.5;9000000;0.1;0;0.001;2;0',
        '1;3;10;91;1;50000;0.1;0;1000;100000;1',
        '1;3;20;91.5;1;50000;0.1;0;1000;100000;1',
        '1;3;30;91.2;1;50000;0.1;0;1000;100000;2',
      ].join('\r\n'),
    }),
  );
}

/** The entries of `bigFeed`: bm_rates.dat (deflated at level 1) and the small files of `base`. */
function bigFeedEntries(): Record<string, Uint8Array | [Uint8Array, { level: 1 }]> {
  const rates = Buffer.from('2;1;10;1;5000000;900000;0.1;0;0.01;1;0\n'.repeat(1_600_000), 'latin1');
  const entries: Record<string, Uint8Array | [Uint8Array, { level: 1 }]> = { 'bm_rates.dat': [rates, { level: 1 }] };
  for (const [name, text] of Object.entries(base)) if (name !== 'bm_rates.dat') entries[name] = encodeCp1251(text);
  return entries;
}

/**
 * The feed of issue 23.2: 1.6 million rows in bm_rates.dat (62.4 MB unpacked, under the old 64 MB cap) in a
 * zip of about 200 KB, with the small files of `base`. Deflating 62.4 MB holds the thread for seconds on a loaded
 * machine: a test that serves it from a loopback server in its own process takes `bigFeedOffThread`.
 */
export function bigFeed(): Buffer {
  return Buffer.from(zipSync(bigFeedEntries()));
}

/**
 * `bigFeed`, deflated in worker threads (fflate's async zip), so the event loop keeps running meanwhile. Made on the
 * test's own thread, the seconds it blocks let a loopback server's idle keep-alive socket outlive its 5 s
 * keepAliveTimeout unnoticed: the client then sends the next request on it just before the server's overdue timer
 * closes it, and the fetch fails with ECONNRESET (test/integration/sources/bestchange.test.ts, under load).
 */
export function bigFeedOffThread(): Promise<Buffer> {
  // Made once per test file: the same bytes every time, and seconds of deflate each.
  madeBigFeed ??= new Promise((resolve, reject) =>
    zip(bigFeedEntries(), (error, data) => (error ? reject(error) : resolve(Buffer.from(data)))),
  );
  return madeBigFeed;
}
let madeBigFeed: Promise<Buffer> | undefined;
