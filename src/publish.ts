// publishFiles: write each export atomically (temporary file in the same folder, then rename), with gzip and
// brotli copies beside it (`.xml.gz`, `.xml.br`); unchanged files are left alone.
import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { RatefileError } from './errors.js';

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

export interface OutputFile {
  /** File name inside the output folder, e.g. `parserfile.xml`. */
  file: string;
  bytes: Buffer;
}

export interface PublishResult {
  written: string[];
  unchanged: string[];
}

async function sameBytes(path: string, bytes: Buffer): Promise<boolean> {
  try {
    return (await readFile(path)).equals(bytes);
  } catch {
    return false;
  }
}

/**
 * Write a file so that readers see the old bytes or the new, never a mix. The temporary file is a
 * dotfile in the same folder: same file system, so the rename is atomic, and servers that refuse
 * dotfiles never serve it half-written.
 */
export async function writeFileAtomic(path: string, bytes: Buffer | string): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const handle = await open(temporary, 'w', 0o644);
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (cause) {
    await rm(temporary, { force: true });
    throw new RatefileError('E_PUBLISH', `cannot write ${path}: ${(cause as Error).message}`, { cause });
  }
}

/** Temporary files older than this were left by a killed process (a live write takes milliseconds). */
const staleTemporaryMs = 60_000;

/** Remove temporary files a killed process left behind; never one another process may still be writing. */
async function removeStaleTemporaries(dir: string, now: number): Promise<void> {
  const names = (await readdir(dir)).filter((name) => /^\..+\.[0-9a-f]{12}\.tmp$/.test(name));
  await Promise.all(
    names.map(async (name) => {
      const path = join(dir, name);
      const info = await stat(path).catch(() => undefined);
      if (info && now - info.mtimeMs > staleTemporaryMs) await rm(path, { force: true });
    }),
  );
}

export async function publishFiles(files: readonly OutputFile[], dir: string): Promise<PublishResult> {
  try {
    await mkdir(dir, { recursive: true });
    await removeStaleTemporaries(dir, Date.now());
  } catch (cause) {
    throw new RatefileError('E_PUBLISH', `cannot create output folder ${dir}: ${(cause as Error).message}`, { cause });
  }
  const result: PublishResult = { written: [], unchanged: [] };
  // Files are independent: compress and write them concurrently (zlib runs on libuv's thread pool).
  await Promise.all(
    files.map(async ({ file, bytes }) => {
      const path = join(dir, file);
      if (await sameBytes(path, bytes)) {
        result.unchanged.push(file);
        return;
      }
      // Compressed copies first, once per build: servers (ours, nginx gzip_static) send them as they are.
      const [gzipped, brotli] = await Promise.all([
        gzipAsync(bytes, { level: 6 }),
        brotliAsync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }),
      ]);
      await Promise.all([writeFileAtomic(`${path}.gz`, gzipped), writeFileAtomic(`${path}.br`, brotli)]);
      await writeFileAtomic(path, bytes);
      result.written.push(file);
    }),
  );
  // Reported in the order given, whatever order the writes finished in.
  const order = (name: string) => files.findIndex((f) => f.file === name);
  result.written.sort((a, b) => order(a) - order(b));
  result.unchanged.sort((a, b) => order(a) - order(b));
  return result;
}
