// The dashboard at `/` of a real `ratefile start` (and its JSON and script): what each export publishes, the sources,
// what is held back; always the latest build; nothing that names the server's folders.
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil, rawRequest } from '../../support/http.js';
import { assertBuilt, spawnRatefile, stopAll, waitForServing, type RatefileProcess } from '../../support/process.js';
import { everySecondConfig, sampleConfig, sampleQuotes, projectsPerTest, type Project } from '../../support/project.js';

// Hooks run last-registered first: processes stop before their project folders are removed.
const project = projectsPerTest();
afterEach(() => stopAll());

function start(made: Project): RatefileProcess {
  return spawnRatefile(['start', '--config', made.configPath, '--port', '0', '--host', '127.0.0.1'], { cwd: made.dir });
}

const portOf = (base: string) => Number(new URL(base).port);
/** The page's text without tags, for reading what it says. */
const textOf = (html: string) => html.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ');

beforeAll(() => assertBuilt());

describe('GET / on ratefile start', () => {
  it('answers 200 text/html with every export, its directions, the sources and what is held back', async () => {
    const made = await project();
    const proc = start(made);
    const base = await waitForServing(proc);
    const response = await fetch(base);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('content-security-policy')).toBe(
      "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    );
    const html = await response.text();
    expect(html).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    const text = textOf(html);
    expect(text).toContain('4 directions published, 0 withheld, 0 out of hours, 0 paused.');
    expect(text).toMatch(/parserfile\.xml \(primary\) 5 [\d.]+ KB/);
    expect(text).toMatch(/affiliatefile\.xml 3 [\d.]+ KB/);
    expect(text).toMatch(/reffile\.xml 4 [\d.]+ KB/);
    expect(text.indexOf('parserfile.xml (primary)')).toBeLessThan(text.indexOf('affiliatefile.xml 3'));
    expect(text).toContain('backoffice file ok 2 quotes');
    expect(html).toContain('<script src="dashboard.js" defer></script>');
    expect(html).not.toMatch(/<script>|<script [^>]*>[^<]/);
    // The rows carry what the files carry: the BTC → SBERRUB item of parserfile.xml, and one row for both cash cities.
    const parserfile = await (await fetch(new URL('parserfile.xml', base))).text();
    const [, inText, outText, amount, min, max] =
      /<from>BTC<\/from>\s*<to>SBERRUB<\/to>\s*<in>(.+)<\/in>\s*<out>(.+)<\/out>\s*<amount>(.+)<\/amount>\s*<minamount>(.+)<\/minamount>\s*<maxamount>(.+)<\/maxamount>/.exec(
        parserfile,
      ) ?? [];
    expect(text).toMatch(
      new RegExp(
        `BTC → SBERRUB parserfile\\.xml, affiliatefile\\.xml, reffile\\.xml published ${inText} : ${outText} .*? ${amount} from config min ${min} · max ${max}`,
      ),
    );
    expect(text).toContain('USDTTRC20 → CASHRUB');
    expect(text).toContain('cities MSK, SPB');
    expect(text).toContain('SBERRUB → USDTTRC20');
    expect(text).toContain('labels manual');
    expect(html).not.toContain(made.dir);
  });

  it('answers HEAD with the headers and no body; the exports and the 404s are as before', async () => {
    const made = await project();
    const base = await waitForServing(start(made));
    const head = await rawRequest({ port: portOf(base), path: '/', method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(Number(head.headers['content-length'])).toBeGreaterThan(1000);
    expect(head.body.length).toBe(0);
    const xml = await rawRequest({ port: portOf(base), path: '/parserfile.xml' });
    expect(xml.status).toBe(200);
    expect(xml.headers['content-type']).toBe('application/xml');
    for (const path of ['/index.html', '/preview', '/?x=1/../secret.xml']) {
      const response = await rawRequest({ port: portOf(base), path });
      expect(response.status, path).toBe(path === '/?x=1/../secret.xml' ? 200 : 404);
    }
    expect((await rawRequest({ port: portOf(base), path: '/', method: 'POST' })).status).toBe(405);
  });

  it("answers only `/`, `/healthz`, the dashboard's JSON and script and the exports spelled exactly: other spellings of them are 404", async () => {
    const made = await project();
    await made.write('outside.xml', '<rates>OUTSIDE</rates>\n');
    const port = portOf(await waitForServing(start(made)));
    for (const path of [
      '/',
      '/healthz',
      '/parserfile.xml',
      '/?refresh=1',
      '/healthz?x',
      '/dashboard.json',
      '/dashboard.js',
      '/dashboard.json?part=head',
    ]) {
      expect((await rawRequest({ port, path })).status, path).toBe(200);
    }
    for (const path of [
      '//outside.xml',
      '///parserfile.xml',
      '/parserfile.xml/..',
      '//x/healthz',
      '//',
      '/./',
      '/.',
      '/healthz/',
      '/./healthz',
      '/%68ealthz',
      '/\\healthz',
      '/x/../parserfile.xml',
      '/dashboard.json/',
      '//dashboard.js',
      '/%64ashboard.js',
    ]) {
      const response = await rawRequest({ port, path });
      expect(response.status, path).toBe(404);
      expect(response.body.toString('utf8'), path).toBe('Not Found\n');
    }
  });

  it('is compressed when the request accepts it: br, then gzip; identity otherwise; Vary either way', async () => {
    const made = await project();
    const base = await waitForServing(start(made));
    const get = (path: string, encoding?: string, method = 'GET') =>
      rawRequest({
        port: portOf(base),
        path,
        method,
        headers: encoding === undefined ? {} : { 'accept-encoding': encoding },
      });
    const identity = await get('/');
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.headers.vary).toBe('Accept-Encoding');
    const gzip = await get('/', 'gzip');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gzip.headers.vary).toBe('Accept-Encoding');
    expect(gunzipSync(gzip.body).toString('utf8')).toMatch(/^<!doctype html>/);
    expect(gzip.body.length).toBeLessThan(identity.body.length / 3);
    expect((await get('/', 'br;q=0, gzip')).headers['content-encoding']).toBe('gzip');
    const br = await get('/dashboard.json', 'gzip, br');
    expect(br.headers['content-encoding']).toBe('br');
    expect(JSON.parse(brotliDecompressSync(br.body).toString('utf8'))).toHaveProperty('paging.page', 1);
    expect((await get('/', 'identity')).headers['content-encoding']).toBeUndefined();
    // HEAD: the headers of the compressed answer, its length, no body.
    const head = await get('/', 'gzip', 'HEAD');
    expect(head.headers['content-encoding']).toBe('gzip');
    expect(Number(head.headers['content-length'])).toBeGreaterThan(0);
    expect(head.body.length).toBe(0);
  });

  it('serves the same view model as JSON, the headline alone with ?part=head, and its one script', async () => {
    const made = await project();
    const base = await waitForServing(start(made));
    const response = await fetch(new URL('dashboard.json?currency=CASHRUB', base));
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const view = (await response.json()) as {
      head: { health: { level: string } };
      directions: { id: string }[];
      matching: number;
      total: number;
    };
    expect(view.head.health.level).toBe('ok');
    expect(view.directions.map((d) => d.id)).toEqual(['USDTTRC20>CASHRUB']);
    expect([view.matching, view.total]).toEqual([1, 4]);
    const head = (await (await fetch(new URL('dashboard.json?part=head', base))).json()) as Record<string, unknown>;
    expect(Object.keys(head).sort()).toEqual(['build', 'counts', 'health', 'maintenance', 'now', 'stamp']);
    const script = await fetch(new URL('dashboard.js', base));
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await script.text()).toContain("fetch('dashboard.json?part=head'");
  });

  it('reflects the latest build', async () => {
    const made = await project({ 'ratefile.config.yaml': everySecondConfig });
    const base = await waitForServing(start(made));
    expect(textOf(await (await fetch(base)).text())).toContain('4 directions published, 0 withheld');
    // BTC/USDT disappears: the two BTC directions are held back, with the reason.
    const quotes = { quotes: sampleQuotes.quotes.filter((q) => q.pair !== 'BTC/USDT') };
    await writeFile(join(made.dir, 'quotes.next'), JSON.stringify(quotes));
    await rename(join(made.dir, 'quotes.next'), join(made.dir, 'quotes.json'));
    let last = '';
    const text = await pollUntil(async () => {
      last = textOf(await (await fetch(base)).text());
      return last.includes('2 directions published, 2 withheld') ? last : undefined;
    }, 10_000).catch((error: unknown) => {
      throw new Error(`${String(error)}; the page said: ${last.slice(last.indexOf('ratefile dashboard'))}`);
    });
    expect(text).toContain('BTC → SBERRUB withheld (quote) no quotes lead from BTC to RUB');
    expect(text).toContain('BTC → USDTTRC20 withheld (quote) no quotes lead from BTC to USDT');
    expect(text).toMatch(/parserfile\.xml \(primary\) 3 /);
  });

  it('names no folder of the server: a source error with an absolute path is shown relative to the config, on the page and in /healthz', async () => {
    const made = await project({
      'ratefile.config.yaml': sampleConfig.replace('path: quotes.json', 'path: missing/quotes.json'),
    });
    const base = await waitForServing(start(made));
    for (const path of ['', 'healthz', 'dashboard.json']) {
      const body = await (await fetch(new URL(path, base))).text();
      expect(body, path).toContain('missing/quotes.json');
      expect(body, path).not.toContain(made.dir);
    }
  });

  it('lists the primary export (parserfile.xml) before the others', async () => {
    const made = await project();
    const text = textOf(await (await fetch(await waitForServing(start(made)))).text());
    expect(text.indexOf('parserfile.xml')).toBeGreaterThan(-1);
    expect(text.indexOf('parserfile.xml')).toBeLessThan(text.indexOf('affiliatefile.xml'));
  });

  it('escapes every text: a source error carrying markup is shown, never run', async () => {
    const config = sampleConfig.replace('path: quotes.json', 'path: "<img src=x onerror=alert(1)>.json"');
    const made = await project({ 'ratefile.config.yaml': config });
    const base = await waitForServing(start(made));
    const html = await (await fetch(base)).text();
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;.json');
    expect(textOf(html)).toContain('backoffice file FAILING 0 quotes');
    expect(textOf(html)).toContain('0 directions published, 4 withheld');
    // The file's absolute path is shown relative to the config's folder, here, in the JSON and in /healthz.
    expect(html).not.toContain(made.dir);
    for (const path of ['dashboard.json', 'healthz']) {
      const body = await (await fetch(new URL(path, base))).text();
      expect(body, path).toContain('<img src=x onerror=alert(1)>.json');
      expect(body, path).not.toContain(made.dir);
    }
  });
});
