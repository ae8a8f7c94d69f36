// The pairs of `rates:` under `start`: the dashboard's section and /dashboard.json, /metrics' gauges, status.json,
// and the alerts' problems, for a consensus whose one source drifts away and is dropped, then comes back.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { currentProblems } from '../../../src/service/alerts/problems.js';
import type { Status } from '../../../src/pure/status/report.js';
import { projectsPerTest, sampleConfig } from '../../support/project.js';
import { runRatefile } from '../../support/run-cli.js';
import { servicesPerTest } from '../../support/service.js';

const project = projectsPerTest();
const start = servicesPerTest();

const config = sampleConfig.replace(
  'sources:\n  backoffice: { type: file, path: quotes.json }\n',
  `sources:
  backoffice: { type: file, path: quotes.json, maxAge: "off" }
  p2p: { type: file, path: p2p.json, maxAge: "off" }
  otc: { type: file, path: otc.json, maxAge: "off" }
rates:
  USDT/RUB: { sources: [backoffice, p2p, otc], spread: 1% }
`,
);
const quotes = (bid: string, ask: string) => JSON.stringify({ quotes: [{ pair: 'USDT/RUB', bid, ask }] });

async function metricLines(base: string): Promise<string[]> {
  const text = await (await fetch(new URL('metrics', base))).text();
  return text.split('\n').filter((line) => line.startsWith('ratefile_rate_'));
}

describe('rates under start', () => {
  it('shows the spread, drops the drifting source with an alert naming it, and takes it back', async () => {
    const made = await project({
      'ratefile.config.yaml': config,
      'p2p.json': quotes('92.05', '92.40'),
      'otc.json': quotes('95.00', '95.20'),
    });
    const service = await start(made);
    expect(await metricLines(service.base)).toEqual([
      'ratefile_rate_spread_ratio{pair="USDT/RUB"} 0.03117375982651125',
      'ratefile_rate_missing{pair="USDT/RUB"} 0',
      'ratefile_rate_terms{pair="USDT/RUB",state="used"} 2',
      'ratefile_rate_terms{pair="USDT/RUB",state="dropped"} 1',
      'ratefile_rate_terms{pair="USDT/RUB",state="missing"} 0',
      'ratefile_rate_terms{pair="USDT/RUB",state="unused"} 0',
    ]);
    const board = (await (await fetch(new URL('dashboard.json', service.base))).json()) as { rates: unknown[] };
    expect(board.rates).toEqual([
      expect.objectContaining({
        pair: 'USDT/RUB',
        made: 'median of 3',
        ok: true,
        spreadText: '3.12%',
        terms: [
          { label: 'backoffice', status: 'used' },
          { label: 'p2p', status: 'used' },
          { label: 'otc', status: 'dropped', why: 'spread 3.12% past 1%: furthest from the median' },
        ],
      }),
    ]);
    const page = await (await fetch(service.base)).text();
    expect(page).toContain('<h2 id="rates">Rates made by formulas and consensus</h2>');
    const status = JSON.parse(await readFile(join(made.dir, '.ratefile', 'status.json'), 'utf8')) as Status;
    expect(currentProblems(status, new Date()).filter((p) => p.key.startsWith('rate:'))).toEqual([
      {
        key: 'rate:USDT/RUB:dropped:otc',
        level: 'degraded',
        text: 'rate USDT/RUB (median of 3): otc dropped, spread 3.12% past 1%: furthest from the median; made without it',
      },
    ]);

    // The source comes back in line: all three count, the alert's problem ends.
    await writeFile(join(made.dir, 'otc.json'), quotes('92.15', '92.30'));
    await service.rebuild();
    expect((await metricLines(service.base)).filter((line) => line.includes('dropped'))).toEqual([
      'ratefile_rate_terms{pair="USDT/RUB",state="dropped"} 0',
    ]);
    const after = JSON.parse(await readFile(join(made.dir, '.ratefile', 'status.json'), 'utf8')) as Status;
    expect(currentProblems(after, new Date()).filter((p) => p.key.startsWith('rate:'))).toEqual([]);
  });

  it('a ruled pair no direction needs that cannot be made: the build log, status, health, dashboard, /metrics and the alerts say which and why', async () => {
    // USDT/EUR from two sources, both needed; otc has no such quote. No direction is priced through it.
    const withEur = config.replace(
      '  USDT/RUB: { sources: [backoffice, p2p, otc], spread: 1% }\n',
      '  USDT/RUB: { sources: [backoffice, p2p, otc], spread: 1% }\n  USDT/EUR: { sources: [p2p, otc], quorum: 2 }\n',
    );
    const made = await project({
      'ratefile.config.yaml': withEur,
      'p2p.json': JSON.stringify({
        quotes: [
          { pair: 'USDT/RUB', bid: '92.05', ask: '92.40' },
          { pair: 'USDT/EUR', bid: '0.92', ask: '0.93' },
        ],
      }),
      'otc.json': quotes('92.15', '92.30'),
    });
    let log = '';
    const service = await start(made, { log: (text) => (log += text) });
    expect(
      log
        .split('\n')
        .filter((line) => line.includes('USDT/EUR'))
        .map((line) => line.replace(/^\S+ /, '')),
    ).toEqual([expect.stringMatching(/^warn rate USDT\/EUR \(median of 2\) cannot be made: .*quorum 2/)]);
    const status = await runRatefile(['status'], made.dir);
    expect(status.stdout).toMatch(/^DEGRADED: rate USDT\/EUR \(median of 2\) cannot be made: /);
    expect(status.stdout).toMatch(
      /\nrates that cannot be made: 1 of 2\n {2}USDT\/EUR \(median of 2\): 1 fresh of 2 terms, quorum 2 \(otc: otc sent no quote of USDT\/EUR\)\n/,
    );
    expect(status.stdout).toContain('held back: 0');
    const board = (await (await fetch(new URL('dashboard.json', service.base))).json()) as {
      rates: { pair: string; ok: boolean; missing?: string }[];
    };
    expect(board.rates.find((rate) => rate.pair === 'USDT/EUR')).toMatchObject({
      ok: false,
      missing: expect.any(String),
    });
    expect(await metricLines(service.base)).toContain('ratefile_rate_missing{pair="USDT/EUR"} 1');
    const saved = JSON.parse(await readFile(join(made.dir, '.ratefile', 'status.json'), 'utf8')) as Status;
    const problems = currentProblems(saved, new Date());
    expect(problems.find((p) => p.key === 'rate:USDT/EUR')?.text).toMatch(/^rate USDT\/EUR \(median of 2\) missing: /);
    expect(problems.find((p) => p.key === 'health:degraded')?.text).toMatch(
      /rate USDT\/EUR \(median of 2\) cannot be made/,
    );
  });
});
