// The dashboard in a real headless Chromium, served by a real `ratefile start` of the demo rebuilt every second: the
// headline turns red within a build of the quotes file breaking and green after, without a reload; a held jump
// shows both rates in the published form; the filters narrow the rows in place; the history has points after three
// builds and after a restart, and the page says when it lost contact; no cell overflows or breaks a word at phone
// width; axe-core finds no serious violation. Screenshots go to test/browser/__screenshots__/ (CI artefacts).
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { assertChromium, type Chromium, launchChromium } from '../support/chromium.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../src/base/decimal.js';
import {
  assertBuilt,
  repoRoot,
  spawnRatefile,
  stopAll,
  waitForServing,
  type RatefileProcess,
} from '../support/process.js';
import { freePort } from '../support/ports.js';
import { makeProject, type Project } from '../support/project.js';

const screenshots = fileURLToPath(new URL('__screenshots__/', import.meta.url));
/** The README's screenshot goes to docs/ with DOCS_IMAGES=1, else beside the others. */
const images = process.env.DOCS_IMAGES === '1' ? join(repoRoot, 'docs') : screenshots;
const axePath = fileURLToPath(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url));
const demoFile = (name: string) => readFileSync(join(repoRoot, name), 'utf8');
const demoQuotes = JSON.parse(demoFile('quotes.json')) as {
  quotes: { pair: string; bid: string; ask: string; time: string }[];
};

let project: Project;
let proc: RatefileProcess;
let port: number;
let base: string;
let browser: Chromium | undefined;
let context: BrowserContext;
let page: Page;
const problems: string[] = [];
/** An edge in front of reffile.xml that answers Cloudflare's challenge, for the Outside view. */
let edge: Server;

/** The few browser globals the checks use (the tsconfig has no DOM library); cast inside each callback, which runs in the page. */
interface PageGlobals {
  document: {
    documentElement: { scrollWidth: number };
    querySelectorAll(selector: string): ArrayLike<PageElement>;
    createRange(): {
      setStart(node: unknown, offset: number): void;
      setEnd(node: unknown, offset: number): void;
      getClientRects(): ArrayLike<unknown>;
    };
    createTreeWalker(root: unknown, what: number): { nextNode(): { textContent: string | null } | null };
  };
  innerWidth: number;
  marker?: string;
  axe: {
    run(
      context: unknown,
      options: unknown,
    ): Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: unknown }[] }[] }>;
  };
}
interface PageElement {
  scrollWidth: number;
  clientWidth: number;
  textContent: string | null;
  getAttribute(name: string): string | null;
}

/**
 * A quotes file that reads well but holds none of the demo's pairs (a back office writing the wrong book): nothing
 * stands in for a good read, so the directions that need the pairs are withheld and health turns failing.
 */
async function writeWrongPairs(): Promise<void> {
  const quotes = [{ pair: 'DOGE/USDT', bid: '0.1', ask: '0.1', time: new Date().toISOString() }];
  await writeFile(join(project.dir, 'quotes.json'), JSON.stringify({ quotes }));
}

/** Quotes as the back office would write them (atomically, by rename), now; `change` edits a pair. */
async function writeQuotes(
  change: (pair: string, bid: string, ask: string) => [string, string] = (_p, bid, ask) => [bid, ask],
): Promise<void> {
  const time = new Date().toISOString();
  const quotes = demoQuotes.quotes.map((q) => {
    const [bid, ask] = change(q.pair, q.bid, q.ask);
    return { ...q, bid, ask, time };
  });
  await writeFile(join(project.dir, 'quotes.next'), JSON.stringify({ quotes }));
  await rename(join(project.dir, 'quotes.next'), join(project.dir, 'quotes.json'));
}

const start = () =>
  spawnRatefile(['start', '--config', project.configPath, '--port', String(port), '--host', '127.0.0.1'], {
    cwd: project.dir,
  });
const headline = () => page.locator('#health').getAttribute('class');
const rows = () => page.locator('#direction-rows tbody tr');
/** A global set in the page: still there after an update means the page was not reloaded. */
const setMarker = () => page.evaluate(() => void ((globalThis as unknown as PageGlobals).marker = 'no reload'));
const marker = () => page.evaluate(() => (globalThis as unknown as PageGlobals).marker);

beforeAll(async () => {
  // Loudly, not skipped: CI installs chromium before this runs.
  assertChromium();
  assertBuilt();
  // The demo in a fresh folder, rebuilt every second; a jump is held until accepted (1,000 builds), so it can be looked at.
  // The Outside view: parserfile.xml watched at the service itself, reffile.xml behind an edge that challenges.
  const challenge = readFileSync(new URL('../fixtures/probe/cloudflare-challenge.html', import.meta.url));
  edge = createServer((_request, response) =>
    response.writeHead(403, { 'Content-Type': 'text/html; charset=UTF-8', 'cf-mitigated': 'challenge' }).end(challenge),
  );
  await new Promise<void>((resolve) => edge.listen(0, '127.0.0.1', resolve));
  port = await freePort();
  const watch = `watch:\n  exports:\n    parserfile.xml: http://127.0.0.1:${port}/parserfile.xml\n    reffile.xml: http://127.0.0.1:${(edge.address() as AddressInfo).port}/reffile.xml\n`;
  const config = `${demoFile('ratefile.config.yaml').replace('schedule: "*/30 * * * * *"', 'schedule: "*/1 * * * * *"')}\nguards: { maxJump: "10%", confirmBuilds: 1000 }\n${watch}`;
  project = await makeProject({
    'ratefile.config.yaml': config,
    ...Object.fromEntries(
      ['parserfile', 'reffile', 'affiliatefile'].map((n) => [`templates/${n}.yaml`, demoFile(`templates/${n}.yaml`)]),
    ),
  });
  await writeQuotes();
  proc = start();
  base = await waitForServing(proc, 20_000);
  browser = await launchChromium();
  context = browser.context;
  await mkdir(screenshots, { recursive: true });
  page = await context.newPage();
  page.on('console', (message) => {
    // Lost contact during the restart is expected: the failed polls are what it is about.
    if (
      (message.type() === 'error' || message.type() === 'warning') &&
      !/ERR_CONNECTION_REFUSED|Failed to load resource/.test(message.text())
    )
      problems.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  await page.setViewportSize({ width: 1280, height: 900 });
  const response = await page.goto(base, { waitUntil: 'load' });
  expect(response?.status()).toBe(200);
}, 60_000);

afterAll(async () => {
  edge?.closeAllConnections();
  edge?.close();
  await browser?.close();
  await stopAll();
  await project?.remove();
});

/** Words of ordinary length in cells and the headline that the browser split over two lines (a mid-word break). */
async function brokenWords(): Promise<string[]> {
  return page.evaluate(() => {
    const g = globalThis as unknown as PageGlobals;
    const broken: string[] = [];
    for (const element of Array.from(g.document.querySelectorAll('td, #health li, .banner'))) {
      const walker = g.document.createTreeWalker(element, 4 /* NodeFilter.SHOW_TEXT */);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent ?? '';
        for (const match of text.matchAll(/\S+/g)) {
          if (match[0].length > 24) continue; // a path or hash may break as a last resort
          const range = g.document.createRange();
          range.setStart(node, match.index);
          range.setEnd(node, match.index + match[0].length);
          if (range.getClientRects().length > 1) broken.push(match[0]);
        }
      }
    }
    return broken;
  });
}

/** Cells whose content is wider than the cell, and the page's width against the window's. */
async function overflow(): Promise<{ cells: string[]; page: number; window: number }> {
  return page.evaluate(() => {
    const g = globalThis as unknown as PageGlobals;
    const cells = Array.from(g.document.querySelectorAll('td'))
      .filter((cell) => cell.scrollWidth > cell.clientWidth + 1)
      .map((cell) => `${cell.getAttribute('data-label') ?? ''}: ${cell.textContent ?? ''}`);
    return { cells, page: g.document.documentElement.scrollWidth, window: g.innerWidth };
  });
}

describe('the dashboard in Chromium', () => {
  it('shows the health headline in green, every export primary first, and a history with points after three builds', async () => {
    await expect.poll(headline).toBe('headline ok');
    expect(await page.title()).toBe('ratefile dashboard');
    // The exports' table: the one captioned Exports (the "Priced by one source" table may come before it).
    const files = await page
      .locator('#live table:has(caption:text-is("Exports"))')
      .locator('td[data-label="File"]')
      .allTextContents();
    expect(files).toEqual(['parserfile.xml (primary)', 'affiliatefile.xml', 'reffile.xml']);
    // Three builds later (one a second) the page has updated itself and the builds chart has a point for each.
    await expect
      .poll(async () => Number(await page.locator('#chart-published-t').locator('..').getAttribute('data-points')), {
        timeout: 15_000,
      })
      .toBeGreaterThanOrEqual(3);
    expect(
      Number(await page.locator('svg[aria-labelledby^="chart-BTC-SBERRUB-t"]').getAttribute('data-points')),
    ).toBeGreaterThanOrEqual(1);
    expect(await page.locator('svg[aria-labelledby^="chart-BTC-SBERRUB-t"] path.published').count()).toBe(1);
    await page.screenshot({ path: join(screenshots, 'dashboard-desktop.png'), fullPage: true });
    await page.screenshot({ path: join(images, 'dashboard.png'), fullPage: false });
    expect((await overflow()).cells).toEqual([]);
  });

  it("shows the Outside view: each public copy's state as a monitor gets it", async () => {
    const state = (file: string) =>
      page.locator('#outside-rows tbody tr', { hasText: file }).locator('td[data-label="State"]').textContent();
    await page.reload({ waitUntil: 'load' });
    await expect.poll(async () => (await state('reffile.xml'))?.trim(), { timeout: 15_000 }).toBe('CHALLENGE');
    expect(['same', 'OLDER']).toContain((await state('parserfile.xml'))?.trim());
    await page.locator('#outside').scrollIntoViewIfNeeded();
    // The section: its heading down to the end of its table.
    const top = (await page.locator('#outside').boundingBox())!;
    const table = (await page.locator('#outside-rows').boundingBox())!;
    const clip = { x: 0, y: top.y - 8, width: 1280, height: table.y + table.height - top.y + 16 };
    await page.screenshot({ path: join(screenshots, 'dashboard-outside.png'), fullPage: true, clip });
    expect((await overflow()).cells).toEqual([]);
  });

  it('filters by currency, state, export and search without reloading', async () => {
    await setMarker();
    const all = await rows().count();
    expect(all).toBe(53);
    const expected = async (query: string) =>
      (
        (await (await fetch(new URL(`dashboard.json?${query}`, base))).json()) as { directions: { id: string }[] }
      ).directions.map((d) => d.id);
    const ids = () =>
      rows().evaluateAll((trs) => trs.map((tr) => (tr as unknown as PageElement).getAttribute('data-id')));

    await page.selectOption('select[name="currency"]', 'CASHRUB');
    await expect.poll(ids).toEqual(await expected('currency=CASHRUB'));
    expect((await ids()).length).toBeGreaterThan(0);
    expect((await ids()).length).toBeLessThan(all);
    expect(new URL(page.url()).search).toBe('?currency=CASHRUB');

    await page.selectOption('select[name="currency"]', '');
    await page.selectOption('select[name="export"]', 'reffile.xml');
    await expect.poll(ids).toEqual(await expected('export=reffile.xml'));
    expect((await ids()).length).toBe(33);

    await page.selectOption('select[name="export"]', '');
    await page.fill('input[name="q"]', 'ekb');
    await expect.poll(ids).toEqual(['USDTTRC20>CASHRUB']);

    await page.fill('input[name="q"]', '');
    await page.selectOption('select[name="state"]', 'withheld');
    await expect.poll(async () => page.locator('#matching').textContent()).toBe('0 directions of 53 match.');
    await page.selectOption('select[name="state"]', 'published');
    await expect.poll(() => rows().count()).toBe(53);
    await page.selectOption('select[name="state"]', '');
    expect(await marker()).toBe('no reload');
  });

  it('shows a held jump with the last published and the new rate in the published form, and the accept command', async () => {
    const parserfile = await (await fetch(new URL('parserfile.xml', base))).text();
    const [, before] =
      /<from>BTC<\/from>\s*<to>SBERRUB<\/to>\s*<in>1<\/in>\s*<out>([\d.]+)<\/out>/.exec(parserfile) ?? [];
    expect(before).toBeDefined();
    // BTC up 20%: more than the 10% maxJump.
    await writeQuotes((pair, bid, ask) =>
      pair === 'BTC/USDT'
        ? [new Decimal(bid).times('1.2').toString(), new Decimal(ask).times('1.2').toString()]
        : [bid, ask],
    );
    const row = page.locator('#direction-rows tr[data-id="BTC>SBERRUB"]');
    await expect.poll(() => row.getAttribute('data-state'), { timeout: 15_000 }).toBe('withheld');
    const jump = (await row.locator('.jump').textContent()) ?? '';
    const [, oldIn, oldOut, newIn, newOut] = /^held jump: published (\S+) : (\S+), new (\S+) : (\S+)$/.exec(jump) ?? [];
    expect([oldIn, oldOut]).toEqual(['1', before]);
    expect(newIn).toBe('1');
    // The new rate as the export would publish it: at most the RUB side's 4 decimal places, about 20% up.
    expect(newOut).toMatch(/^\d+(\.\d{1,4})?$/);
    expect(new Decimal(newOut!).div(before!).toDecimalPlaces(2).toString()).toBe('1.2');
    expect(await row.locator('code').textContent()).toBe('ratefile accept BTC SBERRUB');
    // The other way round the guard keeps 1/rate (0.0000001…), a number no monitor ever saw: never shown.
    const back = page.locator('#direction-rows tr[data-id="SBERRUB>BTC"]');
    expect(await back.getAttribute('data-state')).toBe('withheld');
    const guard = JSON.parse(readFileSync(join(project.dir, '.ratefile', 'guard.json'), 'utf8')) as {
      published: Record<string, { rate: string }>;
    };
    const kept = guard.published['SBERRUB>BTC']!.rate;
    expect(Number(kept)).toBeLessThan(0.001);
    const text = (await back.textContent()) ?? '';
    expect(text).toMatch(/held jump: published \d+(\.\d{1,4})? : 1, new \d+(\.\d{1,4})? : 1/);
    expect(text).not.toContain(new Decimal(kept).toSignificantDigits(10).toFixed());
    expect(text).not.toContain(kept);
    await writeQuotes();
    await expect.poll(() => row.getAttribute('data-state'), { timeout: 15_000 }).toBe('published');
  });

  it('turns the headline red within a build of the quotes file losing its pairs and green after it is fixed, without a reload', async () => {
    await setMarker();
    await writeWrongPairs();
    await expect.poll(headline, { timeout: 10_000 }).toBe('headline failing');
    expect(await page.locator('#health strong').textContent()).toBe('FAILING');
    // Then the file breaks: the source's row turns failing too (the wrong book stands in).
    await writeFile(join(project.dir, 'quotes.json'), '{ "quotes": [ garbage');
    const sourceState = () => page.locator('#live td[data-label="State"]').first().textContent();
    await expect.poll(sourceState, { timeout: 10_000 }).toMatch(/^FAILING/);
    expect(await headline()).toBe('headline failing');
    expect(await marker()).toBe('no reload');
    await writeQuotes();
    await expect.poll(headline, { timeout: 10_000 }).toBe('headline ok');
    expect(await marker()).toBe('no reload');
  });

  it('wraps long texts at spaces: on a phone and a desktop no cell overflows and no ordinary word is split over two lines', async () => {
    // Failing: every direction withheld with a long reason, the source with a long error, the headline with a long list.
    // (A file that does not parse alone is degraded: the demo's maxAge "off" keeps the last good quotes standing in.)
    await writeWrongPairs();
    await expect.poll(headline, { timeout: 10_000 }).toBe('headline failing');
    await writeFile(join(project.dir, 'quotes.json'), '{ "quotes": [ garbage');
    await expect
      .poll(
        async () => {
          await page.reload();
          return (await page.locator('td').allTextContents()).some((text) => text.includes('no quotes lead'));
        },
        { timeout: 10_000 },
      )
      .toBe(true);
    for (const [width, name] of [
      [390, 'dashboard-phone-failing'],
      [1280, 'dashboard-desktop-failing'],
    ] as const) {
      await page.setViewportSize({ width, height: 844 });
      const widths = await overflow();
      expect(widths.cells, `${width} px`).toEqual([]);
      expect(widths.page, `${width} px`).toBeLessThanOrEqual(widths.window);
      expect(await brokenWords(), `${width} px`).toEqual([]);
      await page.screenshot({ path: join(screenshots, `${name}.png`), fullPage: false });
    }
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: join(screenshots, 'dashboard-phone-failing-full.png'), fullPage: true });
    await writeQuotes();
    await expect.poll(headline, { timeout: 10_000 }).toBe('headline ok');
    expect((await overflow()).cells).toEqual([]);
    expect(await brokenWords()).toEqual([]);
    await page.screenshot({ path: join(screenshots, 'dashboard-phone.png'), fullPage: false });
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('has no serious or critical accessibility violation (axe-core)', async () => {
    // axe-core from node_modules, served to the page at a same-origin URL: the page's CSP (script-src 'self',
    // no inline script) stays as it is, where addScriptTag({ path }) would inject an inline script it refuses.
    await page.route(new URL('axe.min.js', base).href, (route) =>
      route.fulfill({ path: axePath, contentType: 'text/javascript' }),
    );
    await page.addScriptTag({ url: new URL('axe.min.js', base).href });
    const result = await page.evaluate(() =>
      (globalThis as unknown as PageGlobals).axe.run((globalThis as unknown as { document: unknown }).document, {
        resultTypes: ['violations'],
      }),
    );
    const serious = result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.help} (${v.nodes.length}: ${JSON.stringify(v.nodes[0]?.target)})`);
    expect(serious).toEqual([]);
  });

  it('says when it lost contact, recovers by itself after a restart, and the history is still there', async () => {
    const points = async () =>
      Number(await page.locator('#chart-published-t').locator('..').getAttribute('data-points'));
    const before = await points();
    expect(before).toBeGreaterThan(1);
    await setMarker();
    await proc.stop('SIGTERM');
    await expect.poll(() => page.locator('#contact').isVisible(), { timeout: 10_000 }).toBe(true);
    expect(await page.locator('#contact').textContent()).toMatch(
      /^Lost contact with ratefile at .+: this page shows the state of then\./,
    );
    proc = start();
    await waitForServing(proc, 20_000);
    await expect.poll(() => page.locator('#contact').isVisible(), { timeout: 10_000 }).toBe(false);
    // The history is read back: the rates from the archive, every build from the build points (the archive keeps only
    // the builds that changed an export), so the chart has every build of before the restart and the new ones.
    await expect.poll(points, { timeout: 10_000 }).toBeGreaterThan(before);
    expect(await page.locator('svg[aria-labelledby^="chart-BTC-SBERRUB-t"] path.published').count()).toBe(1);
    expect(await marker()).toBe('no reload');
    // And a fresh load after the restart draws the same history.
    await page.reload();
    expect(await points()).toBeGreaterThan(before);
  });

  it('loaded nothing else and logged no error', () => {
    expect(problems).toEqual([]);
  });
});
