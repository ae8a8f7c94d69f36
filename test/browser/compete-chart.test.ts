// A competing direction's own chart in a real headless Chromium: `ratefile start` (the binary) competing in a
// loopback info.zip with `self:` set, rebuilt every second, with a day of chart points left in the state folder.
// The chart of BTC → SBERRUB has its five rate lines and the place line, each drawn across the day; BestChange's listing of us is in the table; a
// screenshot of the chart goes to test/browser/__screenshots__/compete-chart.png (a CI artefact).
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext } from 'playwright-core';
import { assertChromium, type Chromium, launchChromium } from '../support/chromium.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dump } from '../support/bestchange.js';
import { freePort } from '../support/ports.js';
import { assertBuilt, spawnRatefile, stopAll, waitForServing } from '../support/process.js';
import { makeProject, type Project } from '../support/project.js';

const screenshots = fileURLToPath(new URL('__screenshots__/', import.meta.url));
const axePath = fileURLToPath(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url));

interface Axe {
  axe: {
    run(
      context: unknown,
      options: unknown,
    ): Promise<{ violations: { id: string; impact: string | null; help: string }[] }>;
  };
}

let project: Project;
let feed: Server;
let browser: Chromium | undefined;
let context: BrowserContext;
let base: string;

/** What getBBox says of an SVG element, run in the page (the tsconfig has no DOM library). */
interface Boxed {
  getBBox(): { width: number; height: number };
}

beforeAll(async () => {
  assertChromium();
  assertBuilt();
  feed = createServer((_request, response) => {
    const body = dump({
      'bm_cycodes.dat': '1;SBERRUB\n2;BTC\n',
      'bm_exch.dat': '100;Us;;0;1\n20;Beta;;0;1\n30;Gamma;;0;1\n',
      'bm_cities.dat': '',
      'bm_info.dat': 'last_update=12:00:00, 21 ноября\ncurrent_version=2.02\n',
      'bm_rates.dat': [
        '2;1;20;1;4950000;9000000;0.1;0;0.001;10;0',
        '2;1;30;1;4940000.5;9000000;0.1;0;0.001;10;0',
        '2;1;100;1;4930000;50000000;0.1;0;0;0;0',
      ].join('\r\n'),
    });
    response.writeHead(200, { 'content-type': 'application/zip' }).end(Buffer.from(body));
  });
  await new Promise<void>((resolve) => feed.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(feed.address() as AddressInfo).port}`;
  project = await makeProject({
    'ratefile.config.yaml': `schedule: "*/1 * * * * *"
sources:
  backoffice: { type: file, path: quotes.json, maxAge: "off" }
  bc: { type: bestchange, baseUrl: "${url}", retries: 0, self: 100 }
currencies:
  BTC: { reserve: "3" }
  SBERRUB: { reserve: "50000000" }
directions:
  - { from: BTC, to: SBERRUB, margin: 2%, compete: { place: 2, floor: 0.5%, ceiling: 3% } }
`,
    'quotes.json': JSON.stringify({ quotes: [{ pair: 'BTC/RUB', bid: '5000000', ask: '5000000' }] }),
    'templates/reffile.yaml': 'include: { tags: [ref] }\n',
  });
  // The past 24 hours as a service that ran them would have left them: one point per 15 minutes, the market
  // swinging ±1%, the rival at the target place 1.5% under it, our place 2 (1 and 3 now and then).
  const now = Date.now();
  const series = Array.from({ length: 96 }, (_, i) => {
    const market = 5000000 * (1 + 0.01 * Math.sin(i / 8));
    const target = Math.round(market * 0.985);
    const place = i % 24 === 5 ? 1 : i % 24 === 17 ? 3 : 2;
    return [now - (96 - i) * 15 * 60_000, target + 0.01, market, market * 0.995, market * 0.97, target, place];
  });
  await mkdir(join(project.dir, '.ratefile', 'history'), { recursive: true });
  await writeFile(
    join(project.dir, '.ratefile', 'history', 'compete.json'),
    JSON.stringify({ version: 1, series: { 'BTC>SBERRUB': series } }),
  );
  const port = await freePort();
  const proc = spawnRatefile(['start', '--config', project.configPath, '--port', String(port), '--host', '127.0.0.1'], {
    cwd: project.dir,
  });
  base = await waitForServing(proc, 20_000);
  browser = await launchChromium();
  context = browser.context;
  await mkdir(screenshots, { recursive: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await stopAll();
  await new Promise<void>((resolve) => (feed ? feed.close(() => resolve()) : resolve()));
  await project?.remove();
});

describe("a competing direction's chart in Chromium", () => {
  it('draws the published rate, market, floor, ceiling, the target place and our place', async () => {
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await page.setViewportSize({ width: 1280, height: 900 });
    expect((await page.goto(base, { waitUntil: 'load' }))?.status()).toBe(200);
    const figure = page.locator('figure.compete-chart[data-direction="BTC>SBERRUB"]');
    await expect.poll(() => figure.count(), { timeout: 15_000 }).toBe(1);
    const boxes = await figure.evaluate((element) => {
      const root = element as unknown as {
        querySelectorAll(s: string): ArrayLike<Boxed & { getAttribute(n: string): string | null }>;
      };
      return Array.from(root.querySelectorAll('path')).map((path) => {
        const box = path.getBBox();
        return { className: path.getAttribute('class'), width: box.width, height: box.height };
      });
    });
    // The day read back from the file, and the builds since.
    expect(Number(await figure.locator('svg').first().getAttribute('data-points'))).toBeGreaterThanOrEqual(96 * 5);
    expect(boxes.map((b) => b.className).sort()).toEqual([
      'ceiling',
      'floor',
      'market',
      'place',
      'published',
      'target',
    ]);
    // Each line spans time (a step held to the end of the window): drawn, not an empty path.
    for (const box of boxes) expect(box.width, String(box.className)).toBeGreaterThan(400);
    // The market swings: its line has height; the place moves between 1 and 3.
    expect(boxes.find((b) => b.className === 'market')?.height).toBeGreaterThan(20);
    expect(boxes.find((b) => b.className === 'place')?.height).toBeGreaterThan(20);
    // Floor 4,975,000 above the published 4,940,000.51 above the ceiling 4,850,000: different heights on the chart.
    const y = await figure.evaluate((element) => {
      const root = element as unknown as {
        querySelector(s: string): { getAttribute(n: string): string | null } | null;
      };
      const first = (name: string) =>
        Number(/M[\d.]+ ([\d.]+)/.exec(root.querySelector(`path.${name}`)?.getAttribute('d') ?? '')?.[1]);
      return { floor: first('floor'), published: first('published'), ceiling: first('ceiling') };
    });
    expect(y.floor).toBeLessThan(y.published);
    expect(y.published).toBeLessThan(y.ceiling);
    expect(await page.locator('#listing td.listing-differs').count()).toBe(1);
    const shot = await figure.screenshot({ path: join(screenshots, 'compete-chart.png') });
    // A PNG of the figure's size: the chart took room on the page.
    expect(shot.subarray(1, 4).toString('latin1')).toBe('PNG');
    const box = await figure.boundingBox();
    expect(box?.width).toBeGreaterThan(300);
    expect(box?.height).toBeGreaterThan(150);
    await page.screenshot({ path: join(screenshots, 'compete-dashboard.png'), fullPage: true });
    // The section keeps the page accessible (axe-core served same-origin, as in dashboard.test.ts).
    await page.route(new URL('axe.min.js', base).href, (route) =>
      route.fulfill({ path: axePath, contentType: 'text/javascript' }),
    );
    await page.addScriptTag({ url: new URL('axe.min.js', base).href });
    const result = await page.evaluate(() =>
      (globalThis as unknown as Axe).axe.run((globalThis as unknown as { document: unknown }).document, {
        resultTypes: ['violations'],
      }),
    );
    const serious = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(serious.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
    expect(problems).toEqual([]);
  });
});
