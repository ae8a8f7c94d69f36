// The watch from outside keeps the latest `keep` versions of each export (src/service/start/outside-watch.ts): once
// it holds `keep`, a new build's bytes still replace the oldest. A watch that saved only when the count changed would
// stop at `keep` builds, and from then on every public copy, the latest included, would read "older" and alert.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../src/base/log.js';
import { readOutside } from '../../../../src/io/watch/store.js';
import { sha256Of } from '../../../../src/pure/watch/judge.js';
import { openOutsideWatch } from '../../../../src/service/start/outside-watch.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('the versions the watch keeps', () => {
  it('past `keep` builds, the latest is still the last one kept', async () => {
    const stateDir = await mkdtemp(join(tmpdir(), 'ratefile-outside-'));
    dirs.push(stateDir);
    const keep = 3;
    const watch = await openOutsideWatch({
      config: {
        exports: { 'parserfile.xml': 'https://rates.example.com/parserfile.xml' },
        everyMs: 300_000,
        userAgent: 'ratefile-watch',
        timeoutMs: 10_000,
        slowAfterMs: 3_000,
        maxBytes: 1024 * 1024,
        alertAfterMs: 900_000,
        keep,
      },
      stateDir,
      log: createLogger({ write: () => undefined }),
      now: () => new Date('2026-11-26T12:00:00Z'),
      registry: new Registry(),
      timer: false,
    });
    const builds = Array.from({ length: 2 * keep + 1 }, (_, i) => Buffer.from(`<rates><!-- build ${i} --></rates>\n`));
    builds.forEach((bytes, i) =>
      watch.published([{ file: 'parserfile.xml', bytes }], new Date(Date.UTC(2026, 10, 26, 12, i))),
    );
    await watch.stop();
    const saved = (await readOutside(stateDir)).versions['parserfile.xml'] ?? [];
    expect(saved.map((version) => version.sha256)).toEqual(builds.slice(-keep).map(sha256Of));
  });
});
