// The dashboard's view model and page for each state the service can be in: no build yet, a failed build after a
// good one, maintenance, a held jump, a competing direction, filters, and texts that must not leak paths or secrets.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../../../src/io/build/build.js';
import { loadConfig } from '../../../../src/io/config/load.js';
import { Decimal } from '../../../../src/base/decimal.js';
import { emptyGuardState } from '../../../../src/pure/guards/guards.js';
import type { Config } from '../../../../src/model/config.js';
import { escapeHtml } from '../../../../src/service/dashboard/html.js';
import { History } from '../../../../src/service/dashboard/history.js';
import {
  dashboardHead,
  dashboardModel,
  type DashboardInput,
  type LatestBuild,
} from '../../../../src/service/dashboard/model.js';
import { queryOf } from '../../../../src/service/dashboard/route.js';
import { renderDashboard } from '../../../../src/service/dashboard/page.js';
import { orderExports } from '../../../../src/service/dashboard/prepare.js';
import type { Redaction } from '../../../../src/service/dashboard/redact.js';
import { makeProject, type Project } from '../../../support/project.js';
import { fixedNow } from '../../../support/run-cli.js';
import type { BuildReport, Status } from '../../../../src/pure/status/report.js';

let made: Project;
let config: Config;
let report: BuildReport;
let files: Map<string, string>;
const redaction = (): Redaction => ({ roots: [made.dir], secrets: ['s3cr3t-token-value'] });
const latestOf = (r: BuildReport): LatestBuild => ({
  report: r,
  exports: config.exports,
  maxAgeMs: { backoffice: 60_000 },
  files: {},
});
const view = (input: Partial<DashboardInput> = {}) =>
  dashboardModel({ latest: latestOf(report), now: fixedNow(), redaction: redaction(), ...input });
const page = (input: Partial<DashboardInput> = {}) => renderDashboard(view(input));
/** The page's text without tags. */
const textOf = (html: string) => html.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ');

beforeAll(async () => {
  made = await makeProject();
  config = await loadConfig(made.configPath, made.dir);
  const result = await build(config, { now: fixedNow });
  report = result.report;
  files = new Map(result.files.map((f) => [f.file, f.bytes.toString('utf8')]));
});
afterAll(() => made.remove());

const failed: Status = {
  version: 1,
  lastBuild: { at: '2026-11-21T12:01:00.000Z', durationMs: 3, ok: false, error: 'config: <b>bad</b>' },
  lastSuccessAt: '2026-11-21T12:00:30.000Z',
  schedulePeriodMs: 30_000,
  maintenance: false,
  sources: [],
  exports: [],
  published: [],
  heldBack: [],
};

describe('the dashboard page', () => {
  it('before any build says so, with a failing headline', () => {
    const html = renderDashboard(dashboardModel({ now: fixedNow(), redaction: redaction() }));
    expect(html).toContain('<p class="banner">No build has run yet.</p>');
    expect(html).toContain(
      '<div id="health" class="headline failing" role="status"><strong>FAILING</strong><ul><li>no build yet</li></ul></div>',
    );
    expect(html).not.toContain('<table');
  });

  it('after a failed build shows the failure, escaped, above the last good build', () => {
    const html = page({ status: failed, now: new Date('2026-11-21T12:01:05Z') });
    expect(html).toContain('<span class="bad">FAILED</span>');
    expect(html).toContain('the last good files are still published: config: &lt;b&gt;bad&lt;/b&gt;</p>');
    expect(html).toContain('Below: the build of 2026-11-21T12:00:30.000Z.');
    expect(html).toContain('<a href="parserfile.xml">parserfile.xml</a>');
    expect(html).toContain('headline degraded');
  });

  it('in maintenance shows the banner', () => {
    const html = page({ latest: latestOf({ ...report, maintenance: true, priced: [] }) });
    expect(html).toContain('Maintenance is on');
    expect(view({ latest: latestOf({ ...report, maintenance: true, priced: [] }) }).directions).toEqual([]);
  });

  it('lists the exports in config order with the primary one (parserfile) first', () => {
    expect(config.exports.map((e) => e.file)).toEqual(['affiliatefile.xml', 'parserfile.xml', 'reffile.xml']);
    expect(orderExports(config.exports).map((e) => e.file)).toEqual([
      'parserfile.xml',
      'affiliatefile.xml',
      'reffile.xml',
    ]);
    expect(view().exports.map((e) => [e.file, e.primary, e.markup])).toEqual([
      ['parserfile.xml', true, '0%'],
      ['affiliatefile.xml', false, '0.5%'],
      ['reffile.xml', false, '0%'],
    ]);
    const html = page();
    expect(html.indexOf('parserfile.xml</a> <span class="muted">(primary)</span>')).toBeLessThan(
      html.indexOf('>affiliatefile.xml</a>'),
    );
  });

  it('shows each direction as the primary export publishes it, with market, margin, quotes, reserve, limits and terms', () => {
    const row = view().directions.find((d) => d.id === 'SBERRUB>USDTTRC20')!;
    const [, inText, outText, amount, min, max] =
      /<from>SBERRUB<\/from>\s*<to>USDTTRC20<\/to>\s*<in>(.+)<\/in>\s*<out>(.+)<\/out>\s*<amount>(.+)<\/amount>\s*<fromfee>1 %<\/fromfee>\s*<minamount>(.+)<\/minamount>\s*<maxamount>(.+)<\/maxamount>/.exec(
        files.get('parserfile.xml')!,
      ) ?? [];
    expect(row.rate).toEqual({ in: inText, out: outText, export: 'parserfile.xml' });
    expect([row.reserve, row.min, row.max]).toEqual([amount, min, max]);
    expect(row.market).toEqual({ in: '92.35', out: '1' });
    // 1 − (1/92.35…) / (1/92.35): the 1.5% margin as the rounded published form has it.
    expect(row.margin).toMatch(/^1\.(4|5)\d?%$/);
    expect(row.fees).toEqual(['from fee 1 %']);
    expect(row.labels).toEqual(['manual']);
    expect(row.reserveFrom).toBe('config');
    // The sample quotes carry no time: they are as old as the file.
    const quoted = report.priced[0]!.steps[0]!.quote.time.getTime();
    expect(
      view({ now: new Date(quoted + 20_000) }).directions.find((d) => d.id === 'SBERRUB>USDTTRC20')!.quotes,
    ).toEqual([{ pair: 'USDT/RUB', side: 'ask', source: 'backoffice', ageSeconds: 20, leftSeconds: 40 }]);
    const cash = view().directions.find((d) => d.id === 'USDTTRC20>CASHRUB')!;
    expect(cash.cities).toEqual(['MSK', 'SPB']);
    expect(cash.exports).toEqual(['parserfile.xml', 'reffile.xml']);
  });

  it('shows a source with its quote age against maxAge and the time left', () => {
    const later = new Date(report.priced[0]!.steps[0]!.quote.time.getTime() + 45_000);
    const [source] = view({ now: later }).sources;
    expect(source).toMatchObject({
      name: 'backoffice',
      state: 'ok',
      count: '2 quotes',
      quoteAgeSeconds: 45,
      maxAgeSeconds: 60,
      leftSeconds: 15,
    });
    const feed = { name: 'bc', type: 'bestchange', ok: true, quotes: 0, rows: 202_690, rejected: [] };
    expect(view({ latest: latestOf({ ...report, sources: [...report.sources, feed] }) }).sources[1]).toMatchObject({
      name: 'bc',
      count: '202690 rows',
    });
  });

  it('shows a competing direction’s place, target and basis', () => {
    const priced = report.priced.map((p, i) =>
      i === 0 ? { ...p, compete: { target: '1-3', place: 2, competitors: 14, basis: 'place' as const } } : p,
    );
    const html = page({ latest: latestOf({ ...report, priced }) });
    expect(textOf(html)).toContain('2 of 14 (target 1-3)');
    expect(textOf(html)).toContain('holds the place');
  });

  it('a competing direction on its normal margin shows no place, the reason escaped, and the feed age', () => {
    const priced = report.priced.map((p, i) =>
      i === 0
        ? {
            ...p,
            compete: {
              target: '2',
              place: 0,
              competitors: 0,
              basis: 'fallback' as const,
              reason: 'feed bc has no data: <html>',
              feedAgeSeconds: 4,
            },
          }
        : p,
    );
    const html = page({ latest: latestOf({ ...report, priced }) });
    expect(textOf(html)).toContain('– of 0 (target 2)');
    expect(html).toContain('NORMAL MARGIN: field not trusted: feed bc has no data: &lt;html&gt;');
    expect(textOf(html)).toContain('feed 4 s old');
  });

  it('a price war shows the rival (escaped) and the end of the cool-down, whatever sets the rate meanwhile', () => {
    const war = {
      rival: 'Br<avo>',
      rivalId: 200,
      rounds: 3,
      since: '2026-11-21T12:00:00.000Z',
      until: '2026-11-21T12:15:00.000Z',
    };
    const at = (basis: 'war' | 'place') =>
      report.priced.map((p, i) =>
        i === 0
          ? {
              ...p,
              compete: {
                target: '1',
                place: 2,
                competitors: 4,
                basis,
                ...(basis === 'war'
                  ? { reason: 'price war with Br<avo> (#200): 3 of our moves answered in a row' }
                  : {}),
                war,
              },
            }
          : p,
      );
    const held = page({ latest: latestOf({ ...report, priced: at('war') }) });
    expect(held).toContain('PRICE WAR: holding the rate: price war with Br&lt;avo&gt; (#200)');
    const followed = page({ latest: latestOf({ ...report, priced: at('place') }) });
    expect(textOf(followed)).toContain('holds the place');
    // The time stays on one line (a browser would break it at its hyphens).
    expect(followed).toContain(
      'price war with Br&lt;avo&gt;: never more generous until <span class="nowrap">2026-11-21T12:15:00.000Z</span>',
    );
  });

  it('escapes the five characters that matter in HTML', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
  });
});

describe('a held jump', () => {
  /** A build in which the direction was last published 20% below today's rate: the guard holds the new one. */
  async function heldJump(id: string) {
    const kept = report.priced
      .find((p) => p.direction.id === id)!
      .rate.times(new Decimal('0.8'))
      .toString();
    const guard = {
      state: { ...emptyGuardState(), published: { [id]: { rate: kept, at: '2026-11-21T11:00:00Z' } } },
      accepted: new Set<string>(),
      maintenance: false,
    };
    const held = (await build(config, { now: fixedNow, guard })).report;
    return { kept, held, row: view({ latest: latestOf(held) }).directions.find((d) => d.id === id)! };
  }

  it('shows the last published and the new rate in the published form, and the accept command; never the internal rate', async () => {
    const { kept: old, held, row } = await heldJump('BTC>SBERRUB');
    expect(row.state).toBe('withheld');
    expect(row.kind).toBe('jump');
    const published = /<from>BTC<\/from>\s*<to>SBERRUB<\/to>\s*<in>(.+)<\/in>\s*<out>(.+)<\/out>/.exec(
      files.get('parserfile.xml')!,
    )!;
    expect(row.jump?.new).toEqual({ in: published[1], out: published[2] });
    expect(row.jump?.old.in).toBe('1');
    expect(new Decimal(row.jump!.old.out).toString()).toBe(
      new Decimal(old).toDecimalPlaces(4, Decimal.ROUND_DOWN).toString(),
    );
    expect(row.jump?.accept).toBe('ratefile accept BTC SBERRUB');
    const html = page({ latest: latestOf(held) });
    expect(textOf(html)).toContain(
      `held jump: published ${row.jump!.old.in} : ${row.jump!.old.out} , new ${published[1]} : ${published[2]}`,
    );
    expect(html).toContain('<code>ratefile accept BTC SBERRUB</code>');
    expect(html).not.toContain(old);
  });

  it('names the last published rate in the reason as the export published it, not as the guard keeps it', async () => {
    // SBERRUB → USDTTRC20 is published as `in : 1`: the guard keeps 1/in, a number no monitor ever saw.
    const { kept, held, row } = await heldJump('SBERRUB>USDTTRC20');
    const internal = new Decimal(kept).toSignificantDigits(10).toFixed();
    expect(held.withheld.find((w) => w.direction.id === 'SBERRUB>USDTTRC20')!.reason).toContain(internal);
    expect(row.jump?.old.out).toBe('1');
    expect(row.reason).toMatch(
      new RegExp(
        `^rate moved 25% from the last published ${row.jump!.old.in.replace('.', '\\.')} : 1 to ${row.jump!.new.in.replace('.', '\\.')} : 1; seen in 1 of 3 distinct answers`,
      ),
    );
    const html = page({ latest: latestOf(held) });
    expect(html).not.toContain(internal);
    expect(html).not.toContain(kept);
  });
});

describe('a direction not published now', () => {
  it('shows the rate it was last published at, in the published form', async () => {
    await made.write(
      'quotes-nobtc.json',
      JSON.stringify({ quotes: [{ pair: 'USDT/RUB', bid: '92.10', ask: '92.35' }] }),
    );
    const source = { ...config.sources[0]!, options: { ...config.sources[0]!.options, path: 'quotes-nobtc.json' } };
    const guard = {
      state: {
        ...emptyGuardState(),
        published: { 'BTC>USDTTRC20': { rate: '95000.123456789', at: '2026-11-21T11:55:00.000Z' } },
      },
      accepted: new Set<string>(),
      maintenance: false,
    };
    const held = (await build({ ...config, sources: [source] }, { now: fixedNow, guard })).report;
    const row = view({ latest: latestOf(held) }).directions.find((d) => d.id === 'BTC>USDTTRC20')!;
    expect(row.state).toBe('withheld');
    expect(row.kind).toBe('quote');
    // USDTTRC20 has precision 2: the rate side rounds down to 2 places, as parserfile.xml would publish it.
    expect(row.lastPublished).toEqual({ in: '1', out: '95000.12', at: '2026-11-21T11:55:00.000Z' });
    expect(textOf(page({ latest: latestOf(held) }))).toContain('— last published 1 : 95000.12, 6 min ago');
  });
});

describe('filters', () => {
  it('narrow the directions by currency, state, export and search, on the page and in the JSON alike', () => {
    const ids = (filter: NonNullable<DashboardInput['filter']>) => view({ filter }).directions.map((d) => d.id);
    expect(ids({})).toEqual(['BTC>SBERRUB', 'BTC>USDTTRC20', 'SBERRUB>USDTTRC20', 'USDTTRC20>CASHRUB']);
    expect(ids({ currency: 'sberrub' })).toEqual(['BTC>SBERRUB', 'SBERRUB>USDTTRC20']);
    expect(ids({ export: 'affiliatefile.xml' })).toEqual(['BTC>SBERRUB', 'BTC>USDTTRC20', 'SBERRUB>USDTTRC20']);
    expect(ids({ q: 'msk' })).toEqual(['USDTTRC20>CASHRUB']);
    expect(ids({ state: 'withheld' })).toEqual([]);
    expect(view({ filter: { q: 'msk' } }).matching).toBe(1);
    const html = page({ filter: { currency: 'SBERRUB' } });
    expect(html).toContain('<option value="SBERRUB" selected>SBERRUB</option>');
    expect(html.match(/<tr data-state=/g)).toHaveLength(2);
  });
});

describe('the JSON and the page from one model', () => {
  it('serves the headline the script polls exactly as the whole model has it', () => {
    for (const input of [{}, { status: failed }, { latest: undefined }] as Partial<DashboardInput>[]) {
      expect(dashboardHead({ latest: latestOf(report), now: fixedNow(), redaction: redaction(), ...input })).toEqual(
        view(input).head,
      );
    }
  });

  it('reads the filters from the query, ignoring anything else', () => {
    expect(
      queryOf('/?currency=btc&state=withheld&export=reffile.xml&q=m%20sk&x=1&sort=rate&order=desc&page=2'),
    ).toEqual({
      filter: { currency: 'btc', state: 'withheld', export: 'reffile.xml', q: 'm sk' },
      paging: { sort: 'rate', order: 'desc', page: '2' },
    });
    expect(queryOf('/dashboard.json?part=head')).toEqual({ filter: {}, paging: {}, part: 'head' });
    expect(queryOf('/')).toEqual({ filter: {}, paging: {} });
  });
});

describe('what anyone who reaches the page sees', () => {
  it('no absolute paths, no credentials or paths of URLs, no secret values, in the page and the JSON', () => {
    const error = `backoffice: ${made.dir}/quotes.json: unreadable; also /var/lib/other/reserves.json, https://user:pa55@api.example.com/v1/rates?key=abc and s3cr3t-token-value`;
    const broken = { ...report, sources: [{ ...report.sources[0]!, ok: false, error }] };
    const status: Status = { ...failed, lastBuild: { ...failed.lastBuild, error } };
    const html = page({ latest: latestOf(broken), status });
    const json = JSON.stringify(view({ latest: latestOf(broken), status }));
    for (const text of [html, json]) {
      expect(text).not.toContain(made.dir);
      expect(text).not.toContain('/var/lib');
      expect(text).not.toContain('pa55');
      expect(text).not.toContain('key=abc');
      expect(text).not.toContain('s3cr3t');
      expect(text).toContain(
        'backoffice: quotes.json: unreadable; also …/reserves.json, https://api.example.com/… and ***',
      );
    }
  });
});

describe('history in the page', () => {
  it('draws a chart per direction and the build charts from the history', () => {
    const history = new History();
    const rates = new Map([['BTC>SBERRUB', ['1:100', '1:101'] as const]]);
    for (let i = 0; i < 3; i++)
      history.apply(
        history.lineFor(
          new Date(fixedNow().getTime() - (3 - i) * 30_000),
          { durationMs: 10 + i, published: 4, withheld: 0 },
          rates,
        ),
      );
    const html = page({ history });
    expect(html).toMatch(
      /<svg class="chart" role="img" aria-labelledby="chart-durations-t chart-durations-d"[^>]*data-points="3">/,
    );
    expect(html).toMatch(/<svg class="chart"[^>]*aria-labelledby="chart-BTC-SBERRUB-t[^>]*data-points="2">/);
    expect(html).toContain('<title id="chart-BTC-SBERRUB-t">BTC → SBERRUB, last 24 hours</title>');
  });
});
