// compress: the gzip and brotli copies of an export; Compressions: one cycle's compressed copies of exact bytes,
// started as each export is rendered (while the next one renders) and taken by publishFiles, which writes them.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { OutputFile } from '../../model/config.js';

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

export interface Compressed {
  gzipped: Buffer;
  brotli: Buffer;
}

/** The gzip and brotli copies servers send as they are (ours, nginx gzip_static), made once per build; also the bench's floor. */
export async function compress(bytes: Buffer): Promise<Compressed> {
  // An output buffer an eighth of the input makes each compression one job on the pool for any export (XML
  // compresses ten times or more): with the default 16 KiB chunks every chunk waits for the main thread, which
  // is busy rendering the next export or checking the files meanwhile. A file that compresses worse just takes
  // a few more rounds.
  const chunkSize = Math.max(64 * 1024, Math.ceil(bytes.length / 8));
  const [gzipped, brotli] = await Promise.all([
    gzipAsync(bytes, { level: 6, chunkSize }),
    brotliAsync(bytes, {
      chunkSize,
      params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
    }),
  ]);
  return { gzipped, brotli };
}

/**
 * Compressed copies by file name, each of one exact Buffer: a copy is only ever handed out for the very bytes
 * it was made from, so a file rendered again (or changed) is compressed again. Held for one cycle.
 */
export class Compressions {
  readonly #started = new Map<string, { bytes: Buffer; pending: Promise<Compressed> }>();

  /** `run`: the compression (tests count its calls); `compress` itself otherwise. */
  constructor(private readonly run: (bytes: Buffer) => Promise<Compressed> = compress) {}

  /** Start compressing a file's bytes on libuv's pool now, unless these bytes already are. */
  start(file: OutputFile): void {
    if (this.#started.get(file.file)?.bytes === file.bytes) return;
    const pending = this.run(file.bytes);
    // A copy nobody takes (the file was refused, or unchanged after all) must not fail anything; a taken one
    // still rejects where it is awaited.
    pending.catch(() => undefined);
    this.#started.set(file.file, { bytes: file.bytes, pending });
  }

  /** The compressed copies of exactly these bytes: the ones started early, or started now. */
  of(file: OutputFile): Promise<Compressed> {
    this.start(file);
    return (this.#started.get(file.file) as { pending: Promise<Compressed> }).pending;
  }
}

/**
 * The size of each of these files in `dir` now (absent: missing). An export whose new bytes differ in length has
 * surely changed and may be compressed before publish compares it: an export that is the same size is left to
 * publish, so an unchanged one never costs a compression.
 */
export async function fileSizes(dir: string, files: readonly string[]): Promise<ReadonlyMap<string, number>> {
  const sizes = await Promise.all(
    files.map(async (file) => [file, (await stat(join(dir, file)).catch(() => undefined))?.size] as const),
  );
  return new Map(sizes.filter((entry): entry is readonly [string, number] => entry[1] !== undefined));
}
