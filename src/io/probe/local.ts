// `ratefile probe` beside the config: the export the probed URL names (its last path segment, an export's file), as
// this machine last published it in the output folder: its digest, when it was published, the schedule period, and
// the versions of it the watch from outside keeps (`.ratefile/outside.json`: they date a public copy). Read again after
// each fetch, so a build publishing during the probe is no false alarm.
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../../model/config.js';
import { digest } from '../../pure/probe/classify.js';
import type { LocalCopy } from '../../pure/probe/cache.js';
import { readOutside } from '../watch/store.js';

/** The export of `config` the URL names, or undefined when it names none. */
export function exportNamed(config: Config, url: URL): string | undefined {
  const last = decodeURIComponent(url.pathname.split('/').pop() ?? '');
  return config.exports.find((entry) => entry.file === last)?.file;
}

/** A reader of the local copy of `file`; undefined from it while the file is not there. */
export function localCopyReader(config: Config, file: string, now: () => Date): () => Promise<LocalCopy | undefined> {
  const path = join(config.output, file);
  return async () => {
    try {
      // One descriptor for both: a publish renaming a new file into place cannot pair one's bytes with another's time.
      const handle = await open(path, 'r');
      const [bytes, stats] = await Promise.all([handle.readFile(), handle.stat()]).finally(() => handle.close());
      const versions = (await readOutside(config.stateDir)).versions[file] ?? [];
      return {
        file,
        digest: digest(bytes),
        publishedAtMs: stats.mtimeMs,
        periodMs: config.schedulePeriodMs,
        nowMs: now().getTime(),
        ...(versions.length > 0 ? { versions } : {}),
      };
    } catch {
      return undefined;
    }
  };
}
