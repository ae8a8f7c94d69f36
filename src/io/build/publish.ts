// publishFiles: write each export atomically (temporary file in the same folder, then rename), with gzip and
// brotli copies beside it (`.xml.gz`, `.xml.br`); an export whose three files already hold its bytes is left alone,
// and removeExports takes an export and its copies away.
import { randomBytes } from 'node:crypto';
import { renameSync } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip } from 'node:zlib';
import { Compressions, type Compressed } from './compressions.js';
import { exportFileName } from '../../model/formats.js';
import { RatefileError } from '../../base/errors.js';
import type { OutputFile } from '../../model/config.js';

// The bench's floor compresses with publish's own function.
export { compress } from './compressions.js';

export interface PublishResult {
  written: string[];
  unchanged: string[];
}

/**
 * Whether the file already holds these bytes: sizes first, then the contents a block at a time, so a 20 MB
 * export is never read into memory whole beside its new version.
 */
async function sameBytes(path: string, bytes: Buffer): Promise<boolean> {
  let handle;
  try {
    handle = await open(path, 'r');
    if ((await handle.stat()).size !== bytes.length) return false;
    const block = Buffer.allocUnsafe(Math.min(bytes.length, 1 << 20));
    for (let offset = 0; offset < bytes.length; ) {
      const { bytesRead } = await handle.read(block, 0, Math.min(block.length, bytes.length - offset), offset);
      if (bytesRead === 0 || !block.subarray(0, bytesRead).equals(bytes.subarray(offset, offset + bytesRead)))
        return false;
      offset += bytesRead;
    }
    return true;
  } catch {
    return false;
  } finally {
    await handle?.close();
  }
}

/**
 * Whether a compressed copy decompresses to exactly these bytes, compared as it inflates: the copy is a tenth of
 * the export, its contents are never held whole. A missing or corrupt copy is simply not the same.
 */
async function sameDecompressed(path: string, bytes: Buffer, decompressor: Transform): Promise<boolean> {
  let offset = 0;
  try {
    decompressor.end(await readFile(path));
    for await (const chunk of decompressor) {
      const block = chunk as Buffer;
      if (offset + block.length > bytes.length || !block.equals(bytes.subarray(offset, offset + block.length)))
        return false;
      offset += block.length;
    }
    return offset === bytes.length;
  } catch {
    return false;
  } finally {
    decompressor.destroy();
  }
}

/**
 * Whether an export and both its compressed copies already hold these bytes. All three count: a build killed
 * between its renames leaves copies of two versions, and the next build must repair them rather than call
 * the set unchanged because the plain file matches.
 */
async function samePublished(path: string, bytes: Buffer): Promise<boolean> {
  if (!(await sameBytes(path, bytes))) return false;
  // Decompressing both copies every build costs more than the rest of publishing an unchanged export; the
  // copies this process wrote or checked are trusted while the three files' stamps are those it saw then.
  const stamp = await stampOfSet(path);
  if (verifiedSets.get(path) === stamp) return true;
  const copies = await Promise.all([
    sameDecompressed(`${path}.gz`, bytes, createGunzip()),
    sameDecompressed(`${path}.br`, bytes, createBrotliDecompress()),
  ]);
  if (!copies.every(Boolean)) return false;
  verifiedSets.set(path, stamp);
  return true;
}

/** Per export path, the stamps of the export and its copies when this process last wrote them or found them to agree. */
const verifiedSets = new Map<string, string>();

/** Inode, size and times of the export and both copies: any rename into place, edit or removal changes it. */
async function stampOfSet(path: string): Promise<string> {
  const stamps = await Promise.all(
    [path, `${path}.gz`, `${path}.br`].map(async (file) => {
      const info = await stat(file, { bigint: true }).catch(() => undefined);
      return info ? `${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}` : 'missing';
    }),
  );
  return stamps.join('|');
}

/** The temporary files this process is writing now: never removed as stale, however slow the disk. */
const writing = new Set<string>();

/** Where a file goes and how: `mode` exactly, whatever the umask; `beforePlace` asked right before its rename. */
interface PlaceOptions {
  mode?: number;
  beforePlace?: ((path: string) => Promise<void>) | undefined;
}

/** A file written whole to its temporary and synced to disk, not yet in place. */
interface StagedFile {
  /** The temporary's inode: the file's once it is in place (unless another writer's rename came after). */
  ino: bigint;
  /** The rename into place (the temporary is removed when it fails). */
  place(): Promise<void>;
  /** The temporary removed, the file left as it was. */
  discard(): Promise<void>;
}

/**
 * Write a file so that readers see the old bytes or the new, never a mix. The temporary file is a
 * dotfile in the same folder: same file system, so the rename is atomic, and servers that refuse
 * dotfiles never serve it half-written. `mode` is set exactly, whatever the umask: `0o644` for the
 * exports (nginx reads them as another user), `0o600` for the state folder's files (state-files.ts).
 */
export async function writeFileAtomic(path: string, bytes: Buffer | string, options: PlaceOptions = {}): Promise<void> {
  await (await stageFile(path, bytes, options)).place();
}

/**
 * The first half of writeFileAtomic: the temporary written and synced. Staged apart from the rename so that the
 * syncs of files placed in a set order (the copies before the export) wait on the disk together.
 */
async function stageFile(
  path: string,
  bytes: Buffer | string,
  { mode = 0o644, beforePlace }: PlaceOptions,
): Promise<StagedFile> {
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  writing.add(temporary);
  const fail = async (cause: unknown): Promise<never> => {
    await rm(temporary, { force: true });
    writing.delete(temporary);
    if (cause instanceof PlaceRefused) throw cause;
    throw new RatefileError('E_PUBLISH', `cannot write ${path}: ${(cause as Error).message}`, { cause });
  };
  let ino = 0n;
  try {
    const handle = await open(temporary, 'w', mode);
    try {
      await handle.chmod(mode);
      await handle.writeFile(bytes);
      await handle.sync();
      ino = (await handle.stat({ bigint: true })).ino;
    } finally {
      await handle.close();
    }
  } catch (cause) {
    return fail(cause);
  }
  return {
    ino,
    async place() {
      try {
        if (beforePlace) {
          // The last word before the file is in place (a warm standby's lock and build age), then the rename at
          // once, synchronously: an async rename may wait in libuv's queue behind compressions, and a process
          // paused there would rename an old file long after the check said yes.
          await beforePlace(path);
          renameSync(temporary, path);
        } else await rename(temporary, path);
      } catch (cause) {
        return fail(cause);
      }
      writing.delete(temporary);
    },
    async discard() {
      await rm(temporary, { force: true }).catch(() => undefined);
      writing.delete(temporary);
    },
  };
}

/**
 * An export and its compressed copies, each written and synced at once, then put in place in order: the copies
 * first, so a server never finds a new .xml beside an older .gz. When one cannot be written none is placed.
 */
async function placeSet(path: string, bytes: Buffer, copies: Compressed, options: PlaceOptions): Promise<bigint[]> {
  const staged = await Promise.allSettled([
    stageFile(`${path}.gz`, copies.gzipped, options),
    stageFile(`${path}.br`, copies.brotli, options),
    stageFile(path, bytes, options),
  ]);
  const ready = staged.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failed = staged.find((result) => result.status === 'rejected');
  if (failed) {
    await Promise.all(ready.map((file) => file.discard()));
    throw failed.reason;
  }
  const [gz, br, plain] = ready as [StagedFile, StagedFile, StagedFile];
  try {
    await Promise.all([gz.place(), br.place()]);
  } catch (cause) {
    await Promise.all([gz.discard(), br.discard(), plain.discard()]);
    throw cause;
  }
  await plain.place();
  // In the order of stampOfSet: the export, then its copies.
  return [plain.ino, gz.ino, br.ino];
}

/** Thrown by a `beforePlace` check: this file, and every one after it, is not put in place. */
export class PlaceRefused extends Error {
  constructor(
    message: string,
    /** True when the lock was lost (this instance is a standby now); false for a build too old to place. */
    readonly lost: boolean,
  ) {
    super(message);
  }
}

/** Temporary files older than this were left by a killed process (a live write takes milliseconds). */
const staleTemporaryMs = 60_000;

/**
 * Remove temporary files a killed process left behind (writeFileAtomic's names only); never one another process may
 * still be writing (younger than a minute), nor one this process is writing.
 */
export async function removeStaleTemporaries(dir: string, now: number): Promise<void> {
  const names = (await readdir(dir)).filter((name) => /^\..+\.[0-9a-f]{12}\.tmp$/.test(name));
  await Promise.all(
    names.map(async (name) => {
      const path = join(dir, name);
      if (writing.has(path)) return;
      const info = await stat(path).catch(() => undefined);
      if (info && now - info.mtimeMs > staleTemporaryMs) await rm(path, { force: true });
    }),
  );
}

export interface PublishOptions {
  /**
   * Called with every file while the changed ones compress on libuv's thread pool, so a check costs no
   * extra time; only the files it returns are written, the others keep their last version on disk.
   */
  admit?: (files: readonly OutputFile[]) => readonly OutputFile[];
  /**
   * Compressed copies already started for some of these exact bytes (as `runCycle` renders), used instead of
   * compressing again; a changed file without one is compressed here. A copy of an unchanged or refused file
   * is never written.
   */
  compressions?: Compressions;
  /**
   * Asked right before each file (each compressed copy too) is renamed into place; throws PlaceRefused to stop the
   * publish there (a warm standby's lock confirmed per file, not once per publish).
   */
  beforePlace?: (path: string) => Promise<void>;
}

/** The output folder, created when missing, without the temporaries a killed process left there. */
async function outputFolder(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
    await removeStaleTemporaries(dir, Date.now());
  } catch (cause) {
    throw new RatefileError('E_PUBLISH', `cannot create output folder ${dir}: ${(cause as Error).message}`, { cause });
  }
}

export async function publishFiles(
  files: readonly OutputFile[],
  dir: string,
  options: PublishOptions = {},
): Promise<PublishResult> {
  // The folder is made ready on libuv's pool while the files are compared and checked; awaited before any write.
  const folderReady = outputFolder(dir);
  folderReady.catch(() => undefined);
  const unchanged = new Set<string>();
  await Promise.all(
    files.map(async ({ file, bytes }) => (await samePublished(join(dir, file), bytes)) && unchanged.add(file)),
  );
  const compressions = options.compressions ?? new Compressions();
  // A refused file's compression is simply not awaited to any use; it must not fail the build either (the
  // Compressions object sees to that).
  const compressing = new Map(files.filter((f) => !unchanged.has(f.file)).map((f) => [f.file, compressions.of(f)]));
  const admitted = new Set((options.admit ? options.admit(files) : files).map((f) => f.file));

  await folderReady;
  const written: string[] = [];
  await Promise.all(
    files.map(async ({ file, bytes }) => {
      const pending = compressing.get(file);
      if (!pending || !admitted.has(file)) return;
      const path = join(dir, file);
      const copies = await pending;
      verifiedSets.delete(path);
      const inodes = await placeSet(path, bytes, copies, { beforePlace: options.beforePlace });
      const stamp = await stampOfSet(path);
      // Another writer's rename between ours and this look (an old leader resumed) is never taken for ours: the
      // stamp kept cannot match the disk, so the watch over a leader's files sees the set replaced.
      const ours = stamp.split('|').every((part, index) => part.split(':')[0] === String(inodes[index]));
      verifiedSets.set(path, ours ? stamp : `replaced while placed: ${stamp}`);
      written.push(file);
    }),
  );
  // Reported in the order given, whatever order the writes finished in.
  const order = (name: string) => files.findIndex((f) => f.file === name);
  return {
    written: written.sort((a, b) => order(a) - order(b)),
    unchanged: files.filter((f) => unchanged.has(f.file)).map((f) => f.file),
  };
}

/**
 * The stamps (inode, size, times of the export and both copies) of the sets this process last put in place or found
 * to hold its bytes, by file name: a leader compares them later to notice another writer's rename over its files.
 */
export function placedStamps(files: readonly string[], dir: string): Map<string, string> {
  const stamps = new Map<string, string>();
  for (const file of files) {
    const stamp = verifiedSets.get(join(dir, file));
    if (stamp !== undefined) stamps.set(file, stamp);
  }
  return stamps;
}

/** The files among `stamps` whose set on disk is no longer the one stamped (replaced, edited or removed). */
export async function replacedSince(stamps: ReadonlyMap<string, string>, dir: string): Promise<string[]> {
  const now = await Promise.all(
    [...stamps].map(async ([file, stamp]) => [file, stamp, await stampOfSet(join(dir, file))]),
  );
  return now.filter(([, stamp, current]) => stamp !== current).map(([file]) => file!);
}

/**
 * Remove exports and their compressed copies: the copies first, so no server (nginx gzip_static) is left
 * sending a copy of an export whose plain file is gone. A name already missing is not an error.
 */
export async function removeExports(files: readonly string[], dir: string): Promise<void> {
  for (const file of files) {
    if (basename(file) !== file || !exportFileName.test(file))
      throw new RatefileError('E_PUBLISH', `refusing to remove ${JSON.stringify(file)}: not an export file name`);
    const path = join(dir, file);
    try {
      await Promise.all([rm(`${path}.gz`, { force: true }), rm(`${path}.br`, { force: true })]);
      await rm(path, { force: true });
    } catch (cause) {
      throw new RatefileError('E_PUBLISH', `cannot remove ${join(dir, file)}: ${(cause as Error).message}`, { cause });
    }
  }
}
