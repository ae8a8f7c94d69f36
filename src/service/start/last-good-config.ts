// The service's config for each build: the file's when it loads, else the last good one, so an edit that breaks
// the file never stops the builds (health is degraded meanwhile). Rejection and acceptance are each logged once.
import { errorLine } from '../../base/errors.js';
import type { Logger } from '../../base/log.js';
import type { Config } from '../../model/config.js';

export interface LastGoodConfig {
  /** The config to build with now: the file's as loaded, or the last good one while the file is rejected. */
  current(): Promise<Config>;
  /** Why the file is rejected (the last good config serves), or undefined. */
  error(): string | undefined;
}

export function lastGoodConfig(load: () => Promise<Config>, first: Config, log: Logger): LastGoodConfig {
  let good = first;
  let rejected: string | undefined;
  return {
    async current() {
      try {
        good = await load();
        if (rejected !== undefined) log.info('config reload accepted again', { event: 'config-reload', ok: true });
        rejected = undefined;
      } catch (error) {
        const text = errorLine(error);
        if (text !== rejected)
          log.error(`config reload rejected, the last good config still serves: ${text}`, {
            event: 'config-reload',
            ok: false,
          });
        rejected = text;
      }
      return good;
    },
    error: () => rejected,
  };
}
