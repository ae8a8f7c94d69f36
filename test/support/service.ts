// startService in-process on a test project with an injected clock, stopped after each test. Its tests drive the
// builds with rebuild(), so a file they write starts none unless `watch: true` (test/integration/service/source-watch.test.ts).
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { loadConfig } from '../../src/io/config/load.js';
import { createLogger } from '../../src/base/log.js';
import { startService, type Service } from '../../src/service/start/service.js';
import type { Project } from './project.js';

/** Registers an afterEach that stops every service started through the returned function. */
export function servicesPerTest(): (
  made: Project,
  options?: {
    now?: () => Date;
    log?: (text: string) => void;
    env?: Record<string, string>;
    watch?: boolean;
    /** The address listened on (default 127.0.0.1); requests still go to 127.0.0.1 (`0.0.0.0` includes it). */
    host?: string;
    /** The port listened on (default 0: any free one); a config that names its own URL (`watch:`) needs it known. */
    port?: number;
  },
) => Promise<Service & { base: string }> {
  const services: Service[] = [];
  afterEach(async () => {
    await Promise.all(services.splice(0).map((service) => service.stop()));
  });
  return async (made, options = {}) => {
    const service = await startService({
      config: await loadConfig(made.configPath),
      loadConfig: () => loadConfig(made.configPath),
      outDir: join(made.dir, 'public'),
      port: options.port ?? 0,
      host: options.host ?? '127.0.0.1',
      log: createLogger({ write: (text: string) => options.log?.(text) }),
      watchFiles: options.watch ?? false,
      deps: { now: options.now ?? (() => new Date()), ...(options.env ? { env: options.env } : {}) },
    });
    services.push(service);
    return Object.assign(service, { base: `http://127.0.0.1:${service.port}/` });
  };
}
