// `ratefile check --links` against a loopback site: a good link, a 404, a redirect to the home page, a login page
// (by its path and by its form), a link that never answers; from a named file, and from a built project whose
// affiliate template links to the site.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultUserAgent } from '../../../src/base/requests.js';
import { makeProject, sampleTemplates, type Project } from '../../support/project.js';
import { runRatefile } from '../../support/run-cli.js';

let server: Server;
let site: string;
let dir: string;
/** The User-Agent of every request the site got. */
const agents: string[] = [];
const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20), { level: 9 });
const projects: Project[] = [];

/** The exchanger's site: knows BTC → SBERRUB and BTC → USDTTRC20, sends unknown directions home. */
function answer(
  path: string,
  query: URLSearchParams,
): { status: number; headers?: Record<string, string>; body?: string } {
  if (path === '/exchange' && query.get('from') === 'BTC' && ['SBERRUB', 'USDTTRC20'].includes(query.get('to') ?? ''))
    return { status: 200, body: '<html><head><title>Exchange BTC</title></head><body>form</body></html>' };
  if (path === '/exchange') return { status: 302, headers: { Location: '/' } };
  if (path === '/') return { status: 200, body: '<html><title>Exchanger</title></html>' };
  if (path === '/account') return { status: 302, headers: { Location: '/user/login?next=/account' } };
  if (path === '/user/login') return { status: 200, body: '<html><title>Welcome</title><form>…</form></html>' };
  if (path === '/partner')
    return { status: 200, body: '<html><title>Partner</title><form><input type="password" name="p"></form></html>' };
  if (path === '/hang') return { status: -1 };
  if (path === '/to-file') return { status: 302, headers: { Location: 'file:///etc/passwd' } };
  if (path === '/to-script') return { status: 301, headers: { Location: 'javascript:alert(1)' } };
  return { status: 404, body: 'not found' };
}

beforeAll(async () => {
  server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    agents.push(String(request.headers['user-agent']));
    const { status, headers, body } = answer(url.pathname, url.searchParams);
    if (status === -1) return; // never answers
    if (url.pathname === '/bomb.xml') {
      // 64 MiB of spaces in 64 KiB on the wire: the cap counts what fetch decompresses.
      response.writeHead(200, { 'Content-Type': 'application/xml', 'Content-Encoding': 'gzip' });
      return response.end(bomb);
    }
    if (url.pathname === '/slow.xml') {
      // The headers, then a body that never ends.
      response.writeHead(200, { 'Content-Type': 'application/xml' });
      return response.write('<?xml version="1.0" encoding="UTF-8"?>\n<rates>\n');
    }
    response.writeHead(status, { 'Content-Type': 'text/html', ...headers }).end(body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  site = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dir = await mkdtemp(join(tmpdir(), 'ratefile-links-'));
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
  for (const project of projects) await project.remove();
});

const item = (from: string, to: string, url: string) =>
  `  <item>\n    <from>${from}</from>\n    <to>${to}</to>\n    <in>1</in>\n    <out>2</out>\n    <url>${url.replace(/&/g, '&amp;')}</url>\n  </item>\n`;

describe('ratefile check --links', () => {
  it('lists the links that do not open a page: a 404, a redirect home, login pages, no answer', async () => {
    const file = join(dir, 'affiliatefile.xml');
    await writeFile(
      file,
      `<?xml version="1.0" encoding="UTF-8"?>\n<rates>\n${[
        item('BTC', 'SBERRUB', `${site}/exchange?from=BTC&to=SBERRUB`),
        item('BTC', 'USDTTRC20', `${site}/exchange?from=BTC&to=USDTTRC20`),
        item('SBERRUB', 'BTC', `${site}/exchange?from=SBERRUB&to=BTC`),
        item('USDTTRC20', 'BTC', `${site}/gone`),
        item('CASHRUB', 'BTC', `${site}/account`),
        item('CASHUSD', 'BTC', `${site}/partner`),
        item('BTC', 'CASHRUB', `${site}/hang`),
      ].join('')}</rates>\n`,
    );
    const { code, stdout } = await runRatefile(['check', '--links', '--link-timeout', '1', file], dir, {
      fetch: globalThis.fetch,
    });
    expect(code).toBe(1);
    const fails = stdout.split('\n').filter((line) => line.startsWith('FAIL'));
    expect(fails).toEqual([
      `FAIL redirected to the home page: ${site}/exchange?from=SBERRUB&to=BTC`,
      `FAIL not a 2xx status: ${site}/gone`,
      `FAIL a login page: ${site}/account`,
      `FAIL a login page: ${site}/partner`,
      `FAIL no answer: ${site}/hang`,
    ]);
    expect(stdout).toContain(`     redirected to ${site}/ — 1 item: SBERRUB → BTC`);
    expect(stdout).toContain('     HTTP 404 — 1 item: USDTTRC20 → BTC');
    expect(stdout).toContain(`     ends at ${site}/user/login?next=/account`);
    expect(stdout).toContain('     the page asks for a password');
    expect(stdout).toContain(`     no answer within 1 s (${new URL(site).host})`);
    expect(agents.at(-1)).toBe(
      `Mozilla/5.0 (compatible; ${defaultUserAgent()}; checks that an exchange direction's link opens)`,
    );
    expect(stdout).toMatch(/7 links of 7 items checked: 2 open a page, 5 do not\.\n$/);
  });

  it("without a file: the config's exports with a url: template, as built, links shared by items checked once", async () => {
    const project = await makeProject({
      'templates/affiliatefile.yaml': sampleTemplates['affiliatefile.yaml']!.replace(
        'https://exchanger.example/?cur_from={from}&cur_to={to}',
        `${site}/exchange?from={from}&to={to}`,
      ),
    });
    projects.push(project);
    expect((await runRatefile(['build'], project.dir)).code).toBe(0);
    const { code, stdout } = await runRatefile(['check', '--links', '--json'], project.dir, {
      fetch: globalThis.fetch,
    });
    const links = JSON.parse(stdout) as { url: string; ok: boolean; items: string[] }[];
    expect(links.map((link) => [link.url.replace(site, ''), link.ok])).toEqual([
      ['/exchange?from=BTC&to=SBERRUB', true],
      ['/exchange?from=BTC&to=USDTTRC20', true],
      ['/exchange?from=SBERRUB&to=USDTTRC20', false],
    ]);
    expect(code).toBe(1);
  });

  it('says so when no export has a url: template', async () => {
    const project = await makeProject({ 'templates/affiliatefile.yaml': 'markup: 0.5%\n' });
    projects.push(project);
    const { code, stderr } = await runRatefile(['check', '--links'], project.dir);
    expect(code).toBe(2);
    expect(stderr).toMatch(/no export of ratefile\.config\.yaml has a url: template/);
  });

  it('fails a link that is not http(s) as such, before any fetch and at the end of a redirect', async () => {
    const file = join(dir, 'schemes.xml');
    await writeFile(
      file,
      `<?xml version="1.0" encoding="UTF-8"?>\n<rates>\n${[
        item('BTC', 'SBERRUB', `${site}/exchange?from=BTC&to=SBERRUB`),
        item('BTC', 'CASHRUB', 'data:text/html,Exchange'),
        item('BTC', 'CASHUSD', 'file:///etc/passwd'),
        item('BTC', 'CASHEUR', 'javascript:alert(1)'),
        item('BTC', 'CASHKZT', 'ftp://exchanger.example/rates'),
        item('BTC', 'CASHUAH', '/exchange?from=BTC&to=CASHUAH'),
        item('BTC', 'CASHTRY', `${site}/to-file`),
        item('BTC', 'CASHAMD', `${site}/to-script`),
      ].join('')}</rates>\n`,
    );
    const asked: string[] = [];
    const fetch: typeof globalThis.fetch = (input, init) => {
      asked.push(String(input));
      return globalThis.fetch(input, init);
    };
    const { code, stdout } = await runRatefile(['check', '--links', file], dir, { fetch });
    expect(code).toBe(1);
    expect(stdout.split('\n').filter((line) => line.startsWith('FAIL'))).toEqual([
      'FAIL not an http(s) link: data:text/html,Exchange',
      'FAIL not an http(s) link: file:///etc/passwd',
      'FAIL not an http(s) link: javascript:alert(1)',
      'FAIL not an http(s) link: ftp://exchanger.example/rates',
      'FAIL not an http(s) link: /exchange?from=BTC&to=CASHUAH',
      `FAIL not an http(s) link: ${site}/to-file`,
      `FAIL not an http(s) link: ${site}/to-script`,
    ]);
    expect(stdout).toContain('     its scheme is data:, not http(s) — 1 item: BTC → CASHRUB');
    expect(stdout).toContain('     not an absolute http(s) URL — 1 item: BTC → CASHUAH');
    expect(stdout).toContain(
      `     its scheme is file:, not http(s) (after 1 redirect(s), at file:///etc/passwd) — 1 item: BTC → CASHTRY`,
    );
    expect(asked.every((url) => url.startsWith(`${site}/`))).toBe(true);
    expect(asked).toHaveLength(3);
  });

  it('reads an export at a URL with the bounds and messages of `check URL`: a gzip bomb, a body that never ends', async () => {
    const bombed = await runRatefile(['check', '--links', `${site}/bomb.xml`], dir, { fetch: globalThis.fetch });
    expect(bombed.stderr).toBe(`ratefile: "${site}/bomb.xml": the body is larger than 20971520 bytes\n`);
    expect(bombed.code).toBe(1);
    const slow = await runRatefile(['check', '--links', '--timeout', '1', `${site}/slow.xml`], dir, {
      fetch: globalThis.fetch,
    });
    expect(slow.stderr).toBe(`ratefile: "${site}/slow.xml": cannot read the body: no complete answer within 1 s\n`);
    expect(slow.code).toBe(1);
    const checked = await runRatefile(['check', '--timeout', '1', `${site}/slow.xml`], dir, {
      fetch: globalThis.fetch,
    });
    expect(checked.stdout).toContain('cannot read the body: no complete answer within 1 s');
    // Asked as ratefile, never as Node's default `node`.
    expect(agents.slice(-3)).toEqual(Array(3).fill(defaultUserAgent()));
  });
});
