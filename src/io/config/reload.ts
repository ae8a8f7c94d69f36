// The service reloads its config before every build. Parsing and validating a large config costs more than
// building from it, so the last config is kept while the files it was read from are unchanged; and a config
// saved in place (truncated, then written) must never be built from half-written, so a change is adopted only
// once it has settled.
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../../model/config.js';
import { plural } from '../../base/words.js';

/** How long the config and templates must be left alone before a change to them is read. */
const defaultSettleMs = 2_000;

interface Stamp {
  /** Identity and last change of every file read: any edit, replacement or removal changes it. */
  text: string;
  /** The latest status change (ctime, which no tool can set back) among them, in ms since the epoch. */
  changedMs: number;
  /** A file or folder is missing: an editor may be between removing the old file and writing the new one. */
  missing: boolean;
}

async function fileStamp(path: string): Promise<Stamp> {
  try {
    const info = await stat(path, { bigint: true });
    return {
      text: `${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`,
      changedMs: Number(info.ctimeNs / 1_000_000n),
      missing: false,
    };
  } catch {
    return { text: 'missing', changedMs: 0, missing: true };
  }
}

/** The config file, the templates folder (entries added or removed) and every file in it. */
async function sourcesStamp(configPath: string, templatesDir: string | undefined): Promise<Stamp> {
  const parts = [await fileStamp(configPath)];
  const names: string[] = [];
  if (templatesDir !== undefined) {
    parts.push(await fileStamp(templatesDir));
    for (const name of (await readdir(templatesDir).catch(() => [] as string[])).sort()) {
      names.push(name);
      parts.push(await fileStamp(join(templatesDir, name)));
    }
  }
  return {
    text: parts.map((part, index) => (index >= 2 ? `${names[index - 2]}=${part.text}` : part.text)).join('\n'),
    changedMs: Math.max(...parts.map((part) => part.changedMs)),
    missing: parts.some((part) => part.missing),
  };
}

export interface ReloadOptions {
  /** The clock, read once per call. */
  now: () => Date;
  settleMs?: number;
  /** A reload that would stop publishing half the directions or more is adopted, with this warning. */
  warn?: (line: string) => void;
}

/**
 * `load`, remembered. Once a config has been adopted it is returned again while its file and templates are as
 * they were, and also while a change to them is younger than `settleMs` (an editor or deploy may still be
 * writing): a text that is still changing is never parsed, so a half-written one is neither built from nor
 * reported as an error. A settled change is read; if the files changed while being read, the last config is
 * kept and the next call tries again. The first call (start-up) reads the config as it is: there is nothing
 * to keep, and an invalid one stops the start. The first sight of a templates folder is not trusted.
 */
export function configReloader(
  configPath: string,
  load: () => Promise<Config>,
  options: ReloadOptions,
): () => Promise<Config> {
  const settleMs = options.settleMs ?? defaultSettleMs;
  let templatesDir: string | undefined;
  let adopted: { config: Config; stamp: string | undefined } | undefined;
  // When these files were first seen as they are now, by the clock: a missing file has no change time of its own.
  let seen: { text: string; atMs: number } | undefined;
  return async () => {
    const now = options.now().getTime();
    const folder = templatesDir;
    const before = await sourcesStamp(configPath, folder);
    if (adopted && before.text === adopted.stamp) return adopted.config;
    if (seen?.text !== before.text) seen = { text: before.text, atMs: now };
    const changedMs = before.missing ? Math.max(before.changedMs, seen.atMs) : before.changedMs;
    if (adopted && now - changedMs < settleMs) return adopted.config;
    const changedWhileReading = async () => (await sourcesStamp(configPath, folder)).text !== before.text;
    let config: Config;
    try {
      config = await load();
    } catch (error) {
      if (adopted && (await changedWhileReading())) return adopted.config;
      throw error;
    }
    if (await changedWhileReading()) {
      if (adopted) return adopted.config;
      return config;
    }
    const previous = adopted?.config.directions.length;
    if (previous !== undefined && config.directions.length * 2 <= previous) {
      options.warn?.(
        `config reloaded with ${plural(config.directions.length, 'direction')}, ${previous} before: ` +
          'half or more are no longer published; if that was not meant, restore the config',
      );
    }
    templatesDir = config.templatesDir;
    adopted = { config, stamp: folder === config.templatesDir ? before.text : undefined };
    return config;
  };
}

/**
 * The bytes of the config file and of every file in its templates folder, hashed. A config adopted again with the
 * same digest is the same config: the reloader reads a config anew when its files were touched or first seen, which
 * `start` does not report as a reload.
 */
export async function configDigest(config: Pick<Config, 'file' | 'templatesDir'>): Promise<string> {
  const hash = createHash('sha256');
  const add = async (path: string) => {
    const bytes = await readFile(path).catch(() => undefined);
    hash.update(`${path}\0${bytes === undefined ? 'missing' : bytes.length}\0`);
    if (bytes !== undefined) hash.update(bytes);
  };
  await add(config.file);
  for (const name of (await readdir(config.templatesDir).catch(() => [] as string[])).sort())
    await add(join(config.templatesDir, name));
  return hash.digest('hex');
}
