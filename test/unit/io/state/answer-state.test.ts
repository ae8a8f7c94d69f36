// Each source's last accepted answer (issue 44, item 4): kept in .ratefile/answers.json between `ratefile build` runs
// (owner-only, bounded, a malformed entry dropped whole) and in the QuoteCache under `start`; an answer about 10^k
// off it fails its source before the quote book, with that reason, and the next good answer is taken again.
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCycle } from '../../../../src/io/build/cycle.js';
import { loadConfig } from '../../../../src/io/config/load.js';
import { QuoteCache } from '../../../../src/io/quotes/quotes.js';
import { readYardsticks, writeYardsticks } from '../../../../src/io/state/answer-state.js';
import { projectsPerTest, sampleConfig, writeSampleQuotes, type Project } from '../../../support/project.js';

const t0 = new Date('2026-11-21T12:00:00Z');
const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);
const project = projectsPerTest();

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function cycle(made: Project, now: Date, factor: string, quoteCache?: QuoteCache) {
  // Both pairs × factor: a back office that switched to kopecks is ×100.
  await writeSampleQuotes(made, now, factor, factor);
  const config = await loadConfig(made.configPath);
  return runCycle(config, join(made.dir, 'public'), { now: () => now, ...(quoteCache ? { quoteCache } : {}) });
}

describe('a scale mistake under `ratefile build` (one state folder across runs)', () => {
  it('is refused as a whole with its reason, kept nowhere; the next good answer is taken', async () => {
    const made = await project();
    const first = await cycle(made, at(0), '1');
    expect(first.build.report.withheld).toEqual([]);
    const path = join(made.dir, '.ratefile', 'answers.json');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const kept = await readFile(path, 'utf8');
    expect(JSON.parse(kept)).toEqual({
      version: 1,
      sources: {
        backoffice: { at: at(0).toISOString(), mids: { 'BTC/USDT': '97012.305', 'USDT/RUB': '92.225' } },
      },
    });

    const kopecks = await cycle(made, at(30), '100');
    const source = kopecks.build.report.sources[0]!;
    expect(source.ok).toBe(false);
    expect(source.error).toBe(
      'backoffice: every quote is about ×100 its last accepted answer (BTC/USDT 9701230.5 against 97012.305 at 2026-11-21T12:00:00.000Z, and 1 more pair alike): a unit or scale mistake (kopecks, cents, satoshi, "per 1000" quotes?), the answer is refused as a whole',
    );
    // Nothing of it reached the book: every direction needing a quote is withheld for its failing source.
    expect(kopecks.build.report.priced.map((p) => p.direction.id)).toEqual([]);
    expect(
      kopecks.build.report.withheld.every((w) => w.kind === 'quote' && /failing sources: backoffice/.test(w.reason)),
    ).toBe(true);
    expect(await readFile(path, 'utf8')).toBe(kept);
    expect((await cycle(made, at(60), '1000')).build.report.sources[0]?.error).toMatch(/about ×1000 /);

    const back = await cycle(made, at(90), '1.01');
    expect(back.build.report.sources[0]?.ok).toBe(true);
    expect(back.build.report.withheld).toEqual([]);
    expect(JSON.parse(await readFile(path, 'utf8')).sources.backoffice.at).toBe(at(90).toISOString());
  });
});

describe('a scale mistake under `start` (the QuoteCache keeps the answers)', () => {
  it('the last good quotes stand in while young enough; the file is read once, then the cache holds them', async () => {
    const made = await project({
      'ratefile.config.yaml': sampleConfig.replace(
        'backoffice: { type: file, path: quotes.json }',
        'backoffice: { type: file, path: quotes.json, maxAge: 2m }',
      ),
    });
    await cycle(made, at(0), '1');
    const quoteCache = new QuoteCache();
    const first = await cycle(made, at(30), '1', quoteCache);
    expect(first.build.report.sources[0]?.ok).toBe(true);
    expect(quoteCache.yardsticks?.get('backoffice')?.at).toBe(at(30).toISOString());
    // The file is not read again: a yardstick written there by hand changes nothing under this cache.
    await writeFile(join(made.dir, '.ratefile', 'answers.json'), '{ torn');
    const cents = await cycle(made, at(60), '0.01', quoteCache);
    expect(cents.warnings).toEqual([]);
    expect(cents.build.report.sources[0]?.error).toMatch(
      /^backoffice: every quote is about ÷100 its last accepted answer .* \(using its last good quotes, fetched /,
    );
    // Published from the answer of 12:00:30, which is within its maxAge.
    expect(cents.build.report.withheld).toEqual([]);
    expect(cents.build.report.priced[0]?.steps[0]?.quote.answers?.[0]).toMatch(
      /^backoffice@2026-11-21T12:00:30\.000Z#/,
    );
  });
});

describe('.ratefile/answers.json', () => {
  async function stateDir(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'ratefile-answers-'));
    dirs.push(dir);
    return dir;
  }
  const good = { at: t0.toISOString(), mids: { 'USDT/RUB': '97', 'BTC/USDT': '97001.5' } };

  it('is read back for the config’s sources only; a malformed entry is dropped whole', async () => {
    const dir = await stateDir();
    await writeYardsticks(dir, new Map([['p2p', good]]));
    expect((await readYardsticks(dir, ['p2p', 'other'])).yardsticks).toEqual(new Map([['p2p', good]]));
    await writeFile(
      join(dir, 'answers.json'),
      JSON.stringify({
        version: 1,
        sources: {
          p2p: good,
          zero: { at: t0.toISOString(), mids: { 'A/B': '0' } },
          words: { at: t0.toISOString(), mids: { 'A/B': '1e5' } },
          when: { at: 'yesterday', mids: {} },
          gone: good,
        },
      }),
    );
    const read = await readYardsticks(dir, ['p2p', 'zero', 'words', 'when']);
    expect([...read.yardsticks.keys()]).toEqual(['p2p']);
    expect(read.problem).toBeUndefined();
  });

  it('a torn or oversized file starts without, with a problem to log', async () => {
    const dir = await stateDir();
    await writeFile(join(dir, 'answers.json'), '{ torn');
    expect((await readYardsticks(dir, ['p2p'])).problem).toMatch(
      /answers\.json: unreadable, starting without last accepted answers/,
    );
    await writeFile(join(dir, 'answers.json'), ' '.repeat(8 * 1024 * 1024 + 1));
    expect((await readYardsticks(dir, ['p2p'])).problem).toMatch(/larger than 8388608 bytes/);
    expect((await readYardsticks(await stateDir(), ['p2p'])).problem).toBeUndefined();
  });
});
