// The service's archive (`archive:`): opened once at start (the files on disk it lacks recorded as found), told of
// every publish by runCycle, and its new records verified at start and every ten minutes in the background, so the
// status and the dashboard say which record was last found good.
import { describeError } from '../../base/errors.js';
import type { Logger } from '../../base/log.js';
import type { Config } from '../../model/config.js';
import { type Archive, openArchive } from '../../io/archive/archive.js';

const CHECK_EVERY_MS = 10 * 60_000;

export interface ServiceArchive {
  archive: Archive | undefined;
  stop(): Promise<void>;
}

export async function openServiceArchive(options: {
  config: Config;
  outDir: string;
  env: Readonly<Record<string, string | undefined>>;
  log: Logger;
  now: () => Date;
}): Promise<ServiceArchive> {
  const { log, now } = options;
  const archive = await openArchive(options.config, { env: options.env, log, outDir: options.outDir, now });
  if (!archive) return { archive, stop: async () => undefined };
  let running: Promise<void> = Promise.resolve();
  let failing = false;
  const check = () => {
    running = running.then(async () => {
      try {
        const verified = await archive.check(now());
        if (verified.ok === false) log.error(`archive: a record does not verify: ${verified.problem}`);
        failing = false;
      } catch (error) {
        if (!failing) log.warn(`archive: cannot verify the new records: ${describeError(error)}`);
        failing = true;
      }
    });
  };
  check();
  const timer = setInterval(check, CHECK_EVERY_MS);
  timer.unref();
  return {
    archive,
    async stop() {
      clearInterval(timer);
      await running;
      await archive.close();
    },
  };
}
