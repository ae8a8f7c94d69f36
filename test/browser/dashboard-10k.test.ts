// The dashboard at 10,000 directions in a real headless Chromium, on a real `ratefile start` of a config generated
// here: 200 rows a page with a pager and a count; page 2 shows rows 201–400 of the config's order, and a reload keeps
// it (the URL holds it); a sort by rate orders the rows by their numbers (Decimal: out per in); without script the
// same links work by navigation; the page comes gzip or br when asked (sizes printed), identity otherwise; the
// headline and the build line under it agree when every direction is withheld. Screenshots at 1280 and 390 px go to
// test/browser/__screenshots__/, or to docs/ with DOCS_IMAGES=1 (the images the docs show).
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { BrowserContext, Page } from 'playwright-core';
import { assertChromium, type Chromium, launchChromium } from '../support/chromium.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../src/base/decimal.js';
import { rawRequest } from '../support/http.js';
import { freePort } from '../support/ports.js';
import {
  assertBuilt,
  repoRoot,
  spawnRatefile,
  stopAll,
  waitForServing,
  type RatefileProcess,
} from '../support/process.js';
import { makeProject, type Project } from '../support/project.js';

const images =
  process.env.DOCS_IMAGES === '1'
    ? join(repoRoot, 'docs')
    : fileURLToPath(new URL('__screenshots__/', import.meta.url));
const COUNT = 10_000;
/** A build of 10,000 directions holds the server's one thread for seconds on a loaded machine: an answer waits for it. */
const patient = { timeout: 60_000 };

/** 101 monitor codes that are not cash (cash needs cities), each with its own reserve; 101 × 100 pairs, cut at 10,000. */
function generated(): { files: Record<string, string>; ids: string[] } {
  const codes = readFileSync(join(repoRoot, 'data/currency-codes.tsv'), 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.split('\t'))
    .filter(([code, , kind]) => code && kind !== 'cash')
    .map(([code = '', , , asset = '']) => ({ code, asset }))
    .slice(0, 101);
  const assets = [...new Set(codes.map((c) => c.asset))].filter((asset) => asset !== 'USDT');
  // Prices from 0.001 to 9,000 USDT, so rates span many powers of ten and text order is not number order.
  const quotes = assets.map((asset, i) => {
    const price = new Decimal(10).pow((i % 7) - 3).times(1 + (i % 9));
    return { pair: `${asset}/USDT`, bid: price.toFixed(), ask: price.times('1.001').toFixed() };
  });
  const ids: string[] = [];
  const directions: string[] = [];
  for (const from of codes) {
    const to = codes.filter((c) => c !== from).slice(0, Math.min(100, COUNT - ids.length));
    if (to.length === 0) break;
    ids.push(...to.map((t) => `${from.code}>${t.code}`));
    directions.push(`  - { from: ${from.code}, to: [${to.map((t) => t.code).join(', ')}] }`);
  }
  const config = [
    // One build at start, then every 20 seconds: a build of 10,000 directions on a loaded machine takes seconds.
    'schedule: "*/20 * * * * *"',
    'sources:',
    '  backoffice: { type: file, path: quotes.json, maxAge: "off" }',
    'currencies:',
    ...codes.map(
      (c, i) => `  ${c.code}: { reserve: "${(i + 1) * 1_000_000}"${i === 0 ? ', reserveCap: "500000"' : ''} }`,
    ),
    'defaults:',
    '  margin: 1.5%',
    'directions:',
    ...directions,
    '',
  ].join('\n');
  return {
    ids,
    files: {
      'ratefile.config.yaml': config,
      'quotes.json': JSON.stringify({ quotes }),
      'templates/parserfile.yaml': 'description: every direction\n',
      // The sample project's other templates name the sample's currencies: plain ones here.
      'templates/reffile.yaml': 'description: the same, for a partner\n',
      'templates/affiliatefile.yaml': 'markup: 0.5%\n',
    },
  };
}

let project: Project;
let proc: RatefileProcess;
let base: string;
let port: number;
let ids: string[];
let browser: Chromium | undefined;
let context: BrowserContext;
let page: Page;
const problems: string[] = [];

const rowIds = () =>
  page
    .locator('#direction-rows tbody tr')
    .evaluateAll((trs) =>
      trs.map((tr) => (tr as unknown as { getAttribute(n: string): string }).getAttribute('data-id')),
    );
/** Each row's published rate as out per in. */
const rates = async () =>
  (await page.locator('#direction-rows td[data-label="Rate (in : out)"]').allTextContents()).map((text) => {
    const [inText = '', outText = ''] = text.trim().split(' : ');
    return new Decimal(outText).div(inText);
  });
const matching = () => page.locator('#matching').textContent();

beforeAll(async () => {
  assertChromium();
  assertBuilt();
  const made = generated();
  ids = made.ids;
  expect(ids).toHaveLength(COUNT);
  project = await makeProject(made.files);
  port = await freePort();
  proc = spawnRatefile(['start', '--config', project.configPath, '--port', String(port), '--host', '127.0.0.1'], {
    cwd: project.dir,
  });
  base = await waitForServing(proc, 240_000);
  browser = await launchChromium();
  context = browser.context;
  await mkdir(images, { recursive: true });
  page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  await page.setViewportSize({ width: 1280, height: 900 });
  expect((await page.goto(base, { waitUntil: 'load' }))?.status()).toBe(200);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await stopAll();
  await project?.remove();
});

describe('the dashboard at 10,000 directions in Chromium', () => {
  it('shows 200 rows a page with the count, a headline in green and the build line in green under it', async () => {
    // The text first: a failure names the reasons.
    expect(await page.locator('#health').textContent()).toBe('OK');
    expect(await page.locator('#health').getAttribute('class')).toBe('headline ok');
    expect(await page.locator('#live p').first().locator('.good').textContent()).toBe('ok');
    expect(await matching()).toBe('10,000 directions of 10,000 match: rows 1–200, page 1 of 50.');
    expect(await page.locator('#counts').textContent()).toBe(
      '10,000 directions published, 0 withheld, 0 out of hours, 0 paused.',
    );
    expect(await rowIds()).toEqual(ids.slice(0, 200));
    expect(await page.locator('nav.pager').first().textContent()).toContain('rows 1–200 of 10,000');
    // A capped reserve says so.
    // The first code's reserve is capped: the first direction into it, the 101st, is on page 1.
    const into = ids.find((id) => id.endsWith(`>${ids[0]!.split('>')[0]}`));
    expect(ids.indexOf(into!)).toBe(100);
    const capped = page.locator(`#direction-rows tr[data-id="${into}"] td[data-label="Reserve"]`);
    expect(await capped.textContent()).toMatch(/^500000 from configcapped at 500000 \S+ by reserveCap$/);
  });

  it('page 2 shows rows 201–400 in config order, in place, and a reload keeps it', async () => {
    await page.evaluate(() => void ((globalThis as unknown as { marker: string }).marker = 'no reload'));
    await page.locator('nav.pager').first().getByRole('link', { name: '2', exact: true }).click();
    await expect.poll(matching, patient).toBe('10,000 directions of 10,000 match: rows 201–400, page 2 of 50.');
    expect(new URL(page.url()).search).toBe('?page=2');
    expect(await rowIds()).toEqual(ids.slice(200, 400));
    expect(await page.evaluate(() => (globalThis as unknown as { marker?: string }).marker)).toBe('no reload');
    await page.reload({ waitUntil: 'load' });
    expect(await rowIds()).toEqual(ids.slice(200, 400));
    // The docs' picture: page 2 of 10,000, from the Directions heading down.
    await page.evaluate(() =>
      (globalThis as unknown as { document: { getElementById(id: string): { scrollIntoView(): void } } }).document
        .getElementById('directions')
        .scrollIntoView(),
    );
    await page.screenshot({ path: join(images, 'dashboard-10k.png'), fullPage: false });
    await page.locator('nav.pager').last().getByRole('link', { name: 'Next ›' }).click();
    await expect.poll(() => new URL(page.url()).search, patient).toBe('?page=3');
    await expect.poll(rowIds, patient).toEqual(ids.slice(400, 600));
  });

  it('sorts by rate as numbers, ascending then descending, across pages', async () => {
    await page.getByRole('link', { name: 'Rate (in : out): sort by rate (out per in), ascending' }).click();
    await expect.poll(() => new URL(page.url()).search, patient).toBe('?sort=rate');
    await expect.poll(matching, patient).toMatch(/rows 1–200, page 1 of 50, sorted by rate \(out per in\), ascending/);
    const ascending = await rates();
    expect(ascending).toHaveLength(200);
    for (let i = 1; i < ascending.length; i++) expect(ascending[i]!.gte(ascending[i - 1]!)).toBe(true);
    // Across pages too: the last page's rates are all at least page 1's highest.
    await page.locator('nav.pager').first().getByRole('link', { name: '50', exact: true }).click();
    await expect.poll(() => new URL(page.url()).search, patient).toBe('?sort=rate&page=50');
    await expect.poll(matching, patient).toMatch(/rows 9,801–10,000, page 50 of 50/);
    const last = await rates();
    expect(last.every((rate) => rate.gte(ascending.at(-1)!))).toBe(true);
    await page.getByRole('link', { name: 'Rate (in : out): sort by rate (out per in), descending' }).click();
    await expect.poll(() => new URL(page.url()).search, patient).toBe('?sort=rate&order=desc');
    await expect.poll(async () => (await rates())[0]!.toFixed(), patient).toBe(last.at(-1)!.toFixed());
    const descending = await rates();
    for (let i = 1; i < descending.length; i++) expect(descending[i]!.lte(descending[i - 1]!)).toBe(true);
    // A filter keeps the sort: the form carries it.
    await page.fill('input[name="q"]', 'btc');
    await expect.poll(() => new URL(page.url()).search, patient).toBe('?q=btc&sort=rate&order=desc');
    await page.fill('input[name="q"]', '');
    await expect.poll(() => new URL(page.url()).search, patient).toBe('?sort=rate&order=desc');
  });

  it('pages and sorts without script: every link is a plain GET', async () => {
    const plain = await context.browser()?.newContext({ javaScriptEnabled: false });
    const bare = plain ? await plain.newPage() : await context.newPage();
    try {
      await bare.goto(new URL('?sort=reserve&order=desc&page=3', base).href, { waitUntil: 'load' });
      expect(await bare.locator('#matching').textContent()).toMatch(/^10,000 directions of 10,000 match: rows 401–600/);
      const reserves = (
        await bare.locator('#direction-rows td[data-label="Reserve"] .line:first-child').allTextContents()
      ).map((text) => new Decimal(text.split(' ')[0]!));
      for (let i = 1; i < reserves.length; i++) expect(reserves[i]!.lte(reserves[i - 1]!)).toBe(true);
      await bare.locator('nav.pager').first().getByRole('link', { name: 'Next ›' }).click();
      await bare.waitForURL(/page=4/);
      expect(await bare.locator('#matching').textContent()).toMatch(/rows 601–800/);
    } finally {
      await bare.close();
    }
  });

  it('is gzip or br when asked, identity otherwise, Vary: Accept-Encoding either way', async () => {
    const ask = (encoding?: string) =>
      rawRequest({
        port,
        path: '/?page=2',
        headers: encoding ? { 'accept-encoding': encoding } : {},
        timeoutMs: 30_000,
      });
    const identity = await ask();
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.headers.vary).toBe('Accept-Encoding');
    const gzip = await ask('gzip, deflate');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gzip.headers.vary).toBe('Accept-Encoding');
    expect(Number(gzip.headers['content-length'])).toBe(gzip.body.length);
    const unzipped = gunzipSync(gzip.body).toString('utf8');
    expect(unzipped).toMatch(/^<!doctype html>/);
    expect(unzipped).toContain('rows 201–400');
    const br = await ask('gzip, br');
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.body).toString('utf8')).toMatch(/^<!doctype html>/);
    // What it saves, for the docs: the page of 200 rows and its compressed forms.
    console.log(
      `page 2 of 10,000 directions: ${identity.body.length} B identity, ${gzip.body.length} B gzip, ${br.body.length} B br`,
    );
    expect(gzip.body.length * 4).toBeLessThan(identity.body.length);
  });

  it('at phone width: cards without a Place line (no compete:), no "—" lines, nothing wider than the screen', async () => {
    await page.goto(base, { waitUntil: 'load' });
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.locator('td[data-label="Place"]').count()).toBe(0);
    expect(await page.locator('td.none:visible').count()).toBe(0);
    expect(
      await page.evaluate(
        () =>
          (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement
            .scrollWidth,
      ),
    ).toBeLessThanOrEqual(390);
    await page.evaluate(() =>
      (globalThis as unknown as { document: { getElementById(id: string): { scrollIntoView(): void } } }).document
        .getElementById('matching')
        .scrollIntoView(),
    );
    await page.screenshot({ path: join(images, 'dashboard-phone.png'), fullPage: false });
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('under a red FAILING headline the build line does not say ok in green, without a reload', async () => {
    await page.evaluate(() => void ((globalThis as unknown as { marker: string }).marker = 'no reload'));
    // A book without any of the pairs: every direction withheld, health failing, the build itself fine.
    await writeFile(
      join(project.dir, 'quotes.json'),
      JSON.stringify({ quotes: [{ pair: 'ZZZ/USDT', bid: '1', ask: '1' }] }),
    );
    await expect
      .poll(() => page.locator('#health').getAttribute('class'), { timeout: 120_000 })
      .toBe('headline failing');
    await expect
      .poll(() => page.locator('#live p').first().textContent(), { timeout: 10_000 })
      .toMatch(/^Last build .+, finished, with the problems above, \d+ ms\.$/);
    expect(await page.locator('#live p').first().locator('.good').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as unknown as { marker?: string }).marker)).toBe('no reload');
  });

  it('logged no error', () => {
    expect(problems).toEqual([]);
  });
});
