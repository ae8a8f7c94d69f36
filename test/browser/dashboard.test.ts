// The preview page in a real headless Chromium, served by a real `ratefile start` on the demo config: it loads, shows the demo
// directions, stays readable on a phone, runs into no errors; screenshots go to test/browser/__screenshots__/ (git-ignored).
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, repoRoot, spawnRatefile, stopAll, waitForServing } from '../support/process.js';
import { makeProject, type Project } from '../support/project.js';

const executablePath = '/usr/bin/chromium';
const screenshots = fileURLToPath(new URL('__screenshots__/', import.meta.url));
const demoFile = (name: string) => readFileSync(join(repoRoot, name), 'utf8');

let project: Project;
let base: string;
let profile: string;
let context: BrowserContext;
const problems: string[] = [];

/** The few browser globals the page checks use (the tsconfig has no DOM library); cast inside each callback, which runs in the page. */
interface PageGlobals {
  document: { documentElement: { scrollWidth: number } };
  innerWidth: number;
  getComputedStyle(element: unknown, pseudo?: string): { content: string; fontSize: string };
}

beforeAll(async () => {
  // Loudly, not skipped: CI installs chromium before this runs.
  if (!existsSync(executablePath)) throw new Error(`${executablePath} is missing: install the Debian package (apt-get install -y chromium)`);
  assertBuilt();
  // A copy of the demo in a fresh folder, so no guard state or maintenance flag of other runs applies.
  project = await makeProject({
    'ratefile.config.yaml': demoFile('ratefile.config.yaml'),
    'quotes.json': demoFile('quotes.json'),
    ...Object.fromEntries(['parserfile', 'reffile', 'affiliatefile'].map((n) => [`templates/${n}.yaml`, demoFile(`templates/${n}.yaml`)])),
  });
  const proc = spawnRatefile(['start', '--config', project.configPath, '--port', '0', '--host', '127.0.0.1'], { cwd: project.dir });
  base = await waitForServing(proc, 20_000);
  profile = await mkdtemp(join(tmpdir(), 'ratefile-chromium-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  await mkdir(screenshots, { recursive: true });
});

afterAll(async () => {
  await context?.close();
  await stopAll();
  await project?.remove();
  if (profile) await rm(profile, { recursive: true, force: true });
});

async function open(viewport: { width: number; height: number }): Promise<Page> {
  const page = await context.newPage();
  await page.setViewportSize(viewport);
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()}`));
  const response = await page.goto(base, { waitUntil: 'load' });
  expect(response?.status()).toBe(200);
  expect(response?.headers()['content-type']).toBe('text/html; charset=utf-8');
  return page;
}

describe('the preview page in Chromium', () => {
  it('shows every demo export with its directions, as the files publish them', async () => {
    const page = await open({ width: 1280, height: 900 });
    expect(await page.title()).toBe('ratefile preview');
    expect(await page.locator('h1').textContent()).toBe('ratefile: what is published now');
    const parserfile = await (await fetch(new URL('parserfile.xml', base))).text();
    const items = parserfile.match(/<item>/g)?.length ?? 0;
    expect(items).toBeGreaterThan(40);
    for (const [file, heading] of [['parserfile.xml', 'export-parserfile'], ['reffile.xml', 'export-reffile'], ['affiliatefile.xml', 'export-affiliatefile']] as const) {
      const count = (await (await fetch(new URL(file, base))).text()).match(/<item>/g)?.length ?? 0;
      await expect.poll(() => page.locator(`#${heading}`).textContent()).toBe(`${file} ${count} items`);
    }
    // One row per direction: the cash directions' cities share a row.
    const rows = page.locator('#export-parserfile + p + table tbody tr');
    const directions = new Set([...parserfile.matchAll(/<from>(\w+)<\/from>\s*<to>(\w+)<\/to>/g)].map((m) => `${m[1]}>${m[2]}`));
    expect(await rows.count()).toBe(directions.size);
    const [, out] = /<from>BTC<\/from>\s*<to>SBERRUB<\/to>\s*<in>1<\/in>\s*<out>([\d.]+)<\/out>/.exec(parserfile) ?? [];
    const btcSber = rows.filter({ hasText: 'SBERRUB' }).filter({ has: page.locator('td[data-label="From"]', { hasText: /^BTC$/ }) });
    await expect.poll(() => btcSber.locator('td[data-label="Rate (in : out)"]').textContent()).toBe(`1 : ${out}`);
    expect(await rows.filter({ hasText: 'MSK, SPB, EKB' }).count()).toBe(1);
    expect(await page.locator('h2#held-back + p').textContent()).toBe('Nothing is held back.');
    expect(await page.locator('table').first().locator('td[data-label="Source"]').textContent()).toBe('backoffice');
    await page.screenshot({ path: join(screenshots, 'preview-desktop.png'), fullPage: true });
    expect(existsSync(join(screenshots, 'preview-desktop.png'))).toBe(true);
  });

  it('is readable on a phone: no sideways scrolling, one card per direction', async () => {
    const page = await open({ width: 390, height: 844 });
    const widths = await page.evaluate(() => {
      const g = globalThis as unknown as PageGlobals;
      return { page: g.document.documentElement.scrollWidth, window: g.innerWidth };
    });
    expect(widths.page).toBeLessThanOrEqual(widths.window);
    expect(await page.locator('#export-parserfile + p + table thead').isVisible()).toBe(false);
    const card = page.locator('#export-parserfile + p + table tbody tr').first();
    const box = await card.boundingBox();
    expect(box?.width).toBeLessThanOrEqual(390);
    expect(await card.locator('td[data-label="From"]').evaluate((cell) => (globalThis as unknown as PageGlobals).getComputedStyle(cell, '::before').content)).toBe('"From"');
    const fontSize = await page.locator('body').evaluate((body) => Number.parseFloat((globalThis as unknown as PageGlobals).getComputedStyle(body).fontSize));
    expect(fontSize).toBeGreaterThanOrEqual(14);
    await page.screenshot({ path: join(screenshots, 'preview-phone.png'), fullPage: false });
    expect(existsSync(join(screenshots, 'preview-phone.png'))).toBe(true);
  });

  it('loaded nothing else and logged no error', () => {
    expect(problems).toEqual([]);
  });
});
