// The watch over a leader's files under `ha:`. No lock fences a folder: an old leader paused after its last lock check
// and before its rename (a VM freeze, a stop, a slow disk) lands its old file over the new leader's whatever the lock
// says by then. The new leader notices (inotify at once, a comparison of stamps every 250 ms besides) and puts its own
// files back from memory, fenced like a publish, without waiting for a build; an instance that no longer holds the
// lock notices nothing (the files are the new leader's).
import { watch, type FSWatcher } from 'node:fs';
import type { Logger } from '../../base/log.js';
import type { OutputFile } from '../../model/config.js';
import { PlaceRefused, placedStamps, publishFiles, replacedSince } from '../build/publish.js';
import { putBackFence } from './placed.js';
import type { PublishGate } from './standby.js';

export interface PlacedWatch {
  /** This instance is putting files in place: its own renames are not another writer's. */
  busy(): void;
  /** Its publish is over: `files` are this leader's to watch (their stamps as it left them); undefined: none are. */
  settled(files: readonly string[] | undefined): void;
  close(): void;
}

export interface PlacedWatchOptions {
  dir: string;
  /** How often the stamps (three stats per export) are compared, besides each change inotify reports. */
  intervalMs: number;
  /** Called once per replacement seen; the watch rests until the next `settled`. */
  onReplaced: (files: string[]) => void;
}

export function watchPlaced(options: PlacedWatchOptions): PlacedWatch {
  let expected: Map<string, string> | undefined;
  let checking = false;
  let again = false;
  let watcher: FSWatcher | undefined;
  const check = () => {
    const compared = expected;
    if (!compared || compared.size === 0) return;
    if (checking) {
      again = true;
      return;
    }
    checking = true;
    replacedSince(compared, options.dir)
      .then(
        (files) => {
          // A publish of this instance that started meanwhile made the comparison moot (its renames change the stamps).
          if (files.length === 0 || expected !== compared) return;
          expected = undefined;
          options.onReplaced(files);
        },
        () => undefined,
      )
      .finally(() => {
        checking = false;
        if (again) {
          again = false;
          check();
        }
      });
  };
  const timer = setInterval(check, options.intervalMs);
  timer.unref();
  // A rename into the folder is seen at once where inotify sees it (not another host's write on a network folder:
  // the comparison of stamps sees that one, as soon as the client's attribute cache lets it).
  const listen = () => {
    if (watcher) return;
    try {
      watcher = watch(options.dir, { persistent: false }, check);
      watcher.on('error', () => {
        watcher?.close();
        watcher = undefined;
      });
    } catch {
      watcher = undefined;
    }
  };
  return {
    busy: () => {
      expected = undefined;
    },
    settled: (files) => {
      expected = files ? placedStamps(files, options.dir) : undefined;
      if (files) listen();
      check();
    },
    close: () => {
      clearInterval(timer);
      watcher?.close();
    },
  };
}

export interface GuardPlacedOptions {
  dir: string;
  standby: PublishGate;
  log: Logger;
  now: () => Date;
  /** The schedule's period, which sets the lock's idle timeout (how long the answer to a lock check holds). */
  periodMs: number;
  /** A build now: when the files could not be put back from memory (the lock's answer came too late, a disk error). */
  rebuild: () => Promise<void>;
}

export interface GuardedFiles {
  /** The gate to give runCycle: a yes to publish rests the watch (and waits for a putting back under way). */
  gate: PublishGate;
  /**
   * A cycle is over: the files this leader put in place (kept in memory until its next publish), or undefined
   * (standby, failed, the lock lost on the way).
   */
  settled(placed: readonly OutputFile[] | undefined): void;
  close(): void;
}

/**
 * The service's watch over a leader's files: a replacement is noted on the gate (the status's `ha.overwritten`, an
 * alert), logged, and the leader's own files are put back at once.
 */
export function guardPlaced(options: GuardPlacedOptions): GuardedFiles {
  let kept: readonly OutputFile[] | undefined;
  let publishing = false;
  let puttingBack: Promise<void> = Promise.resolve();
  const files = watchPlaced({
    dir: options.dir,
    intervalMs: 250,
    onReplaced: (replaced) => {
      puttingBack = judgeReplaced(replaced).catch(() => undefined);
    },
  });
  const judgeReplaced = async (replaced: string[]) => {
    if (!(await stillLeads(options.standby))) return;
    options.standby.overwritten(replaced, options.now());
    options.log.warn(
      `ha: ${replaced.join(', ')} replaced by another writer while this instance leads (an old leader resumed?): putting this instance's back at once`,
      { event: 'ha', ok: false, files: replaced },
    );
    const placed = kept;
    // A publish under way writes them anyway.
    if (placed && !publishing) await putBack(placed, replaced);
  };
  const putBack = async (placed: readonly OutputFile[], replaced: string[]) => {
    const again = placed.filter((file) => replaced.includes(file.file));
    const clock = { now: options.now, periodMs: options.periodMs };
    try {
      await publishFiles(again, options.dir, { beforePlace: putBackFence(options.standby, clock) });
      if (!publishing && kept === placed) files.settled(placed.map((file) => file.file));
    } catch (error) {
      // The lock lost meanwhile: the files are the new leader's now, and the lock check said so.
      if (error instanceof PlaceRefused && error.lost) return;
      options.log.warn(`ha: ${replaced.join(', ')} not put back (${(error as Error).message}): building now`, {
        event: 'ha',
        ok: false,
      });
      // Not awaited: a build that reaches its publish meanwhile waits for this putting back to end.
      void options.rebuild();
    }
  };
  return {
    gate: {
      ...options.standby,
      mayPublish: async (config, at) => {
        const may = await options.standby.mayPublish(config, at);
        if (may) {
          publishing = true;
          files.busy();
          await puttingBack;
        }
        return may;
      },
    },
    settled: (placed) => {
      publishing = false;
      kept = placed;
      files.settled(placed?.map((file) => file.file));
    },
    close: () => files.close(),
  };
}

/**
 * Only a leader judges: the lock is asked first, on its connection. An instance that resumed after a pause may still
 * take itself for the leader until that answer; the files it finds replaced are then the new leader's, which is no
 * fault (its lost lock is logged once, by the lock check itself), and it neither alerts nor puts anything back.
 */
async function stillLeads(standby: PublishGate): Promise<boolean> {
  return standby.status().role === 'leader' && (await standby.stillHolds());
}
