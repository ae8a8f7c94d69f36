// The compete step inside build(), as the service runs it (a QuoteCache across builds, the clock as data): the
// feed's age is the age of the fetch in use; a last good feed stands in while younger than maxAge, then the
// normal margin; a feed reused past its maxAge (refresh longer than maxAge) is not trusted either.
import { describe, expect, it } from 'vitest';
import { build } from '../../../src/io/build/build.js';
import { loadConfig } from '../../../src/io/config/load.js';
import { QuoteCache } from '../../../src/io/quotes/quotes.js';
import { competeDump } from '../../support/bestchange.js';
import { projectsPerTest } from '../../support/project.js';
import { replayPerSuite } from '../../support/replay.js';

const config = (url: string, bc: string) => `sources:
  backoffice: { type: file, path: quotes.json, maxAge: "off" }
  bc: { type: bestchange, baseUrl: "${url}", retries: 0, ${bc} }
currencies:
  BTC: { reserve: "3" }
  USDTTRC20: { precision: 2, reserve: "100000" }
  SBERRUB: { reserve: "5000000" }
directions:
  - { from: BTC, to: SBERRUB, margin: 2%, compete: { place: 2, floor: 0.5%, ceiling: 3% } }
`;
const quotes = JSON.stringify({ quotes: [{ pair: 'BTC/RUB', bid: '5000000', ask: '5000100' }] });

describe('build() with a competing direction across builds', () => {
  const project = projectsPerTest();
  const replay = replayPerSuite();

  async function builds(bc: string, responses: { status?: number; body: Buffer | string }[], offsets: number[]) {
    replay().setRoutes([
      {
        path: '/info.zip',
        responses: responses.map((r) => ({ ...r, headers: { 'content-type': 'application/zip' } })),
      },
    ]);
    const { configPath } = await project({ 'ratefile.config.yaml': config(replay().url, bc), 'quotes.json': quotes });
    const loaded = await loadConfig(configPath);
    const quoteCache = new QuoteCache();
    const start = Date.now();
    const results = [];
    for (const offset of offsets) {
      const { report } = await build(loaded, { now: () => new Date(start + offset * 1000), quoteCache });
      const priced = report.priced.find((p) => p.direction.id === 'BTC>SBERRUB')!;
      results.push({ rate: priced.rate.toString(), compete: priced.compete });
    }
    return results;
  }

  it('a failed fetch: the last good feed stands in while younger than maxAge, then the normal margin', async () => {
    const [first, second, third] = await builds(
      'maxAge: 2m',
      [{ body: competeDump() }, { status: 503, body: 'down' }],
      [0, 60, 200],
    );
    expect(first).toEqual({
      rate: '4950000.01',
      compete: { target: '2', place: 2, competitors: 3, basis: 'place', feedAgeSeconds: 0 },
    });
    expect(second).toEqual({
      rate: '4950000.01',
      compete: { target: '2', place: 2, competitors: 3, basis: 'place', feedAgeSeconds: 60 },
    });
    expect(third?.rate).toBe('4900000');
    expect(third?.compete).toMatchObject({
      basis: 'fallback',
      reason: expect.stringMatching(/^feed bc has no data: bc: GET \/info\.zip: HTTP 503/) as unknown,
    });
  });

  it('a feed reused longer than its maxAge (refresh 10m, maxAge 1m) is not trusted', async () => {
    const [first, second] = await builds('refresh: 10m, maxAge: 1m', [{ body: competeDump() }], [0, 120]);
    expect(first?.compete?.basis).toBe('place');
    expect(second).toEqual({
      rate: '4900000',
      compete: {
        target: '2',
        place: 4,
        competitors: 3,
        basis: 'fallback',
        reason: 'feed bc is 120 s old (limit 60 s)',
        feedAgeSeconds: 120,
      },
    });
  });
});
