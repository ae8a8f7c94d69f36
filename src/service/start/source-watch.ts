// The files `file` sources read (quotes and reserves), watched by `ratefile start` so that a back office writing one
// starts a build at once instead of waiting up to a schedule period. Each file's folder is watched, not the file:
// writers replace a file by renaming a new one over it (a watch on the old file would see nothing more), and a
// folder watch also sees a file that does not exist yet appear. A watch that cannot be made (inotify limits, a
// network filesystem) is a warning: the schedule still builds.
import { type FSWatcher, watch } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import type { Logger } from '../../base/log.js';
import type { Config } from '../../model/config.js';
import { sourceRefreshMs } from '../../io/quotes/source-options.js';

/** A change is built once its file has been left alone this long: a writer's write and rename are one change. */
export const changeSettleMs = 30;
/** …but a file rewritten without pause is still built this long after its first change. */
export const changeMaxWaitMs = 500;

/**
 * The files whose change starts a build: each `file` source's and `file` reserve source's, unless it says
 * `watch: false` or has a `refresh` (then it is read at most that often, and a build on a change would reuse it).
 */
export function watchedFiles(config: Pick<Config, 'dir' | 'sources' | 'reserveSources'>): string[] {
  const files = new Set<string>();
  for (const source of [...config.sources, ...config.reserveSources]) {
    const path = source.options.path;
    if (source.type !== 'file' || typeof path !== 'string' || source.options.watch === false) continue;
    if (sourceRefreshMs(source) > 0) continue;
    files.add(resolve(config.dir, path));
  }
  return [...files].sort();
}

export interface SourceWatch {
  /** Watch exactly these files (absolute paths): folders no longer needed are let go, new ones watched, failed ones retried. */
  target(files: readonly string[]): void;
  /** Stop watching; a change waiting out its settle time is dropped. */
  close(): void;
}

export interface SourceWatchOptions {
  log: Logger;
  /** The files that changed (absolute paths), once they have settled. */
  onChange: (files: string[]) => void;
  settleMs?: number;
  maxWaitMs?: number;
}

const reason = (error: unknown) => {
  const { code, message } = error as NodeJS.ErrnoException;
  return code === 'ENOSPC' ? `${message} (the inotify watch limit, fs.inotify.max_user_watches)` : message;
};

/** What the watch keeps: each folder watched, and the changes waiting out their settle time. */
interface Watching {
  log: Logger;
  onChange: (files: string[]) => void;
  settleMs: number;
  maxWaitMs: number;
  /** Per folder: its watch (absent while it cannot be made) and the names in it that count. */
  folders: Map<string, { watcher?: FSWatcher; names: Set<string>; failure?: string }>;
  changed: Set<string>;
  timer: NodeJS.Timeout | undefined;
  firstChangeAt: number;
  closed: boolean;
}

export function watchSourceFiles(options: SourceWatchOptions): SourceWatch {
  const watching: Watching = {
    log: options.log,
    onChange: options.onChange,
    settleMs: options.settleMs ?? changeSettleMs,
    maxWaitMs: options.maxWaitMs ?? changeMaxWaitMs,
    folders: new Map(),
    changed: new Set(),
    timer: undefined,
    firstChangeAt: 0,
    closed: false,
  };
  return {
    target: (files) => target(watching, files),
    close() {
      watching.closed = true;
      clearTimeout(watching.timer);
      for (const entry of watching.folders.values()) entry.watcher?.close();
      watching.folders.clear();
    },
  };
}

/** The folders of these files watched: those no longer needed let go, new ones watched, failed ones retried. */
function target(watching: Watching, files: readonly string[]): void {
  if (watching.closed) return;
  const { folders } = watching;
  const wanted = new Map<string, Set<string>>();
  for (const file of files) {
    const folder = dirname(file);
    (wanted.get(folder) ?? wanted.set(folder, new Set()).get(folder)!).add(basename(file));
  }
  for (const [folder, entry] of folders)
    if (!wanted.has(folder)) {
      entry.watcher?.close();
      folders.delete(folder);
    }
  for (const [folder, names] of wanted) {
    const entry = folders.get(folder);
    if (entry) entry.names = names;
    else folders.set(folder, { names });
    if (!folders.get(folder)!.watcher) open(watching, folder);
  }
}

function open(watching: Watching, folder: string): void {
  const entry = watching.folders.get(folder)!;
  try {
    const watcher = watch(folder, { persistent: false }, (_event, name) => {
      // No name (some platforms): any of the folder's files may have changed.
      const names = name === null ? [...entry.names] : entry.names.has(name) ? [name] : [];
      if (names.length > 0)
        noticed(
          watching,
          names.map((each) => resolve(folder, each)),
        );
    });
    watcher.on('error', (error) => failed(watching, folder, error));
    entry.watcher = watcher;
    if (entry.failure !== undefined) {
      watching.log.info(`watch: watching ${folder} again`, { event: 'source-watch', ok: true, folder });
      delete entry.failure;
    }
  } catch (error) {
    failed(watching, folder, error);
  }
}

/** A watch that fails is a warning once per reason; the folder is retried at the next `target`. */
function failed(watching: Watching, folder: string, error: unknown): void {
  const entry = watching.folders.get(folder);
  if (!entry) return;
  entry.watcher?.close();
  delete entry.watcher;
  const text = reason(error);
  if (entry.failure !== text)
    watching.log.warn(
      `watch: cannot watch ${folder} for changes to ${[...entry.names].join(', ')}: ${text}; they are read at the scheduled builds`,
      { event: 'source-watch', ok: false, folder },
    );
  entry.failure = text;
}

/** Changes wait until their files are left alone for `settleMs`, but no longer than `maxWaitMs` after the first. */
function noticed(watching: Watching, files: readonly string[]): void {
  const now = performance.now();
  if (watching.changed.size === 0) watching.firstChangeAt = now;
  for (const file of files) watching.changed.add(file);
  clearTimeout(watching.timer);
  watching.timer = setTimeout(
    () => flush(watching),
    Math.max(0, Math.min(watching.settleMs, watching.firstChangeAt + watching.maxWaitMs - now)),
  );
}

function flush(watching: Watching): void {
  watching.timer = undefined;
  const files = [...watching.changed].sort();
  watching.changed.clear();
  if (!watching.closed && files.length > 0) watching.onChange(files);
}
