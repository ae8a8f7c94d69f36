// The reference as an operator meets it: a build with two sources of BTC/USDT, one of them turned to kopecks (100×).
// The direction is withheld as `reference` with both values and sources; the status lists what one source alone
// sets (`soleSource`), health counts it as a fault, an alert names it, the dashboard shows the reference and its
// band, and /metrics' gauges carry the deviation and the band per pair.
import { Registry } from 'prom-client';
import { afterAll, describe, expect, it } from 'vitest';
import { build } from '../../../../src/io/build/build.js';
import { loadConfig } from '../../../../src/io/config/load.js';
import { currentProblems } from '../../../../src/service/alerts/problems.js';
import { dashboardModel } from '../../../../src/service/dashboard/model.js';
import { renderDashboard } from '../../../../src/service/dashboard/page.js';
import { recordReferences, referenceInstruments } from '../../../../src/service/server/reference-metrics.js';
import { formatStatus, successStatus } from '../../../../src/pure/status/status.js';
import { makeProject, type Project } from '../../../support/project.js';
import { fixedNow } from '../../../support/run-cli.js';

const at = new Date(fixedNow().getTime() - 10_000).toISOString();
const quotes = (btc: string, usdt = '92.10') =>
  JSON.stringify({
    quotes: [
      { pair: 'BTC/USDT', bid: btc, ask: btc, time: at },
      { pair: 'USDT/RUB', bid: usdt, ask: '92.35', time: at },
    ],
  });

const config = `sources:
  backoffice: { type: file, path: quotes.json }
  venue: { type: file, path: venue.json }
currencies:
  BTC: { reserve: "3" }
  USDTTRC20: { precision: 2, reserve: "100000" }
  SBERRUB: { reserve: "5000000" }
defaults:
  margin: 1.5%
directions:
  - { from: BTC, to: USDTTRC20 }
  - { from: USDTTRC20, to: SBERRUB }
`;

const projects: Project[] = [];
afterAll(() => Promise.all(projects.map((project) => project.remove())));

async function built(backoffice: string) {
  const project = await makeProject({
    'ratefile.config.yaml': config,
    'quotes.json': backoffice,
    'venue.json': JSON.stringify({ quotes: [{ pair: 'BTC/USDT', bid: '97000', ask: '97001', time: at }] }),
  });
  projects.push(project);
  const loaded = await loadConfig(project.configPath, project.dir);
  const { report } = await build(loaded, { now: fixedNow });
  return { report, loaded, project, status: successStatus(undefined, report, 5, loaded.schedulePeriodMs) };
}

describe('a market one source alone sets, in a build', () => {
  it('agreeing: published with its reference; the status lists it, and the pair nothing checks', async () => {
    const { report, status } = await built(quotes('97012.30'));
    expect(report.priced.map((p) => [p.direction.id, p.reference?.from])).toEqual([
      ['BTC>USDTTRC20', 'venue:BTC/USDT'],
      ['USDTTRC20>SBERRUB', undefined],
    ]);
    expect(status.soleSource).toEqual([
      { pairs: ['USDT/RUB (backoffice)'], sources: ['backoffice'], directions: ['USDTTRC20>SBERRUB'] },
      {
        pairs: ['BTC/USDT (backoffice)'],
        sources: ['backoffice'],
        reference: 'venue:BTC/USDT',
        directions: ['BTC>USDTTRC20'],
      },
    ]);
    expect(formatStatus(status, fixedNow())).toContain(
      'priced by one source: 2 directions, 1 without a reference (one broken source can set their rate: docs/pricing-and-guards.md)\n' +
        '  USDT/RUB (backoffice): NO REFERENCE — USDTTRC20 → SBERRUB\n' +
        '  BTC/USDT (backoffice): checked against venue:BTC/USDT — BTC → USDTTRC20\n',
    );
    expect(currentProblems(status, fixedNow())).toEqual([]);
  });

  it('100× off (kopecks): withheld as a fault, alerted, shown with its band on the dashboard and in /metrics', async () => {
    const { report, status, loaded, project } = await built(quotes('9701230'));
    const reason =
      'its market 9701230 (BTC/USDT (backoffice)) is 9900% from its reference 97000 (venue:BTC/USDT), past its band of 3%';
    expect(status.heldBack).toEqual([{ direction: 'BTC>USDTTRC20', kind: 'reference', reason }]);
    // A fault: one of the two directions is more than health.maxWithheld (25%) withheld.
    expect(status.health?.level).toBe('failing');
    expect(currentProblems(status, fixedNow())).toContainEqual({
      key: 'reference:BTC>USDTTRC20',
      text: `BTC → USDTTRC20 withheld, far from its independent reference: ${reason}`,
    });

    const view = dashboardModel({
      latest: { report, exports: loaded.exports, maxAgeMs: {}, files: {} },
      status,
      now: fixedNow(),
      redaction: { roots: [project.dir], secrets: [] },
    });
    const row = view.directions.find((d) => d.id === 'BTC>USDTTRC20')!;
    expect(row.reference).toEqual({
      market: { in: '1', out: '97000' },
      from: 'venue:BTC/USDT',
      deviation: '9900%',
      band: '3%',
      past: true,
    });
    expect(row.market).toEqual({ in: '1', out: '9701230' });
    const html = renderDashboard(view);
    expect(html).toContain('<span class="bad">reference 1 : 97000 (venue:BTC/USDT), 9900% off, band 3%</span>');
    expect(html).toContain('<h2 id="sole-source">Priced by one source</h2>');

    const registry = new Registry();
    const gauges = referenceInstruments([registry]);
    recordReferences(gauges, report.soleSource ?? []);
    const text = await registry.metrics();
    expect(text).toContain('ratefile_reference_deviation_ratio{pair="BTC/USDT"} 99.01268041237114\n');
    expect(text).toContain('ratefile_reference_band_ratio{pair="BTC/USDT"} 0.03\n');
    expect(text).toContain('ratefile_sole_source_directions{reference="checked"} 1\n');
    expect(text).toContain('ratefile_sole_source_directions{reference="none"} 1\n');
  });
});
