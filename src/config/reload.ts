// The service reloads its config before every build; parsing and validating 10,000 directions costs more than
// the build itself. A reloader keeps the last config while the files it was read from are unchanged.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../model.js';

/** A file's identity and last change, or that it is missing: any edit, replacement or removal changes it. */
async function fileStamp(path: string): Promise<string> {
  try {
    const info = await stat(path, { bigint: true });
    return `${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
  } catch {
    return 'missing';
  }
}

/** The config file, the templates folder (entries added or removed) and every file in it. */
async function sourcesStamp(configPath: string, templatesDir: string | undefined): Promise<string> {
  const parts = [await fileStamp(configPath)];
  if (templatesDir !== undefined) {
    parts.push(await fileStamp(templatesDir));
    const names = await readdir(templatesDir).catch(() => [] as string[]);
    for (const name of names.sort()) parts.push(`${name}=${await fileStamp(join(templatesDir, name))}`);
  }
  return parts.join('\n');
}

/**
 * `load`, remembered: the last config is returned again while its file and templates are as they were. A config
 * is remembered only when the stamps taken before and after reading it agree, so an edit made while it was being
 * read is picked up by the next call; the first load of a templates folder is never remembered for that reason.
 */
export function configReloader(configPath: string, load: () => Promise<Config>): () => Promise<Config> {
  let templatesDir: string | undefined;
  let last: { stamp: string; config: Config } | undefined;
  return async () => {
    const before = await sourcesStamp(configPath, templatesDir);
    if (last && before === last.stamp) return last.config;
    last = undefined;
    const config = await load();
    const sameFolder = templatesDir === config.templatesDir;
    templatesDir = config.templatesDir;
    if (sameFolder && (await sourcesStamp(configPath, templatesDir)) === before) last = { stamp: before, config };
    return config;
  };
}
