// `ratefile check` as the operator runs it (files and URLs on a loopback server, text and --json, exit codes),
// and the same check gating every publish of `ratefile build`.
import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/io/config/load.js';
import type { Label } from '../../../src/base/config/fields.js';
import { runCycle } from '../../../src/io/build/cycle.js';
import type { Config } from '../../../src/model/config.js';
import { listen } from '../../../src/service/server/server.js';
import { projectsPerTest } from '../../support/project.js';
import { runRatefile } from '../../support/run-cli.js';
import { base, dump } from '../../support/bestchange.js';

const brokenPath = fileURLToPath(new URL('../../fixtures/exports/broken.xml', import.meta.url));
const good =
  '<?xml version="1.0" encoding="UTF-8"?>\n<rates>\n  <item>\n    <from>BTC</from>\n    <to>USDTTRC20</to>\n    <in>1</in>\n    <out>96075.29</out>\n    <amount>485000</amount>\n    <minamount>0.001</minamount>\n    <maxamount>5</maxamount>\n  </item>\n</rates>\n';

const jsonExport =
  '{"version": "1.3", "currencies": {"list": {"1": "BTC", "2": "USDTTRC20"}}, "exchange": {"1": {"to": {"2": {"xr": -96075.29, "amount": "485000", "min": 0.001, "max": 5}}}}}\n';

const project = projectsPerTest();

interface JsonReport {
  ok: boolean;
  files: {
    target: string;
    ok: boolean;
    items?: number;
    errors: number;
    warnings: number;
    findings: { severity: string; rule: string; message: string; item?: { index: number } }[];
  }[];
}

describe('ratefile check <file>', () => {
  it('exits 0 on a clean file and says so', async () => {
    const { dir, write } = await project();
    await write('good.xml', good);
    const result = await runRatefile(['check', 'good.xml'], dir);
    expect(result).toEqual({ code: 0, stdout: 'good.xml: 1 item, clean\n', stderr: '' });
  });

  it('exits 1 on the broken file, listing every defect with its item', async () => {
    const result = await runRatefile(['check', brokenPath], process.cwd());
    expect(result.code).toBe(1);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/broken\.xml: 7 items, 1 error, 5 warnings, FAILS$/);
    expect(lines.slice(1).map((line) => /item (\d) \(([^)]+)\)/.exec(line)?.slice(1, 3).join(' '))).toEqual([
      '1 BTC → SBERRUB',
      '2 USDTTRC20 → BTC',
      '3 SBERRUB → TCSBRUB',
      '4 CARDRUB → USDTTRC20',
      '5 SBERRUB → BTC',
      '6 USDTTRC20 → CASHRUB, MSK',
    ]);
  });

  it('--json gives every finding with its item, and checks several files at once', async () => {
    const { dir, write } = await project();
    await write('good.xml', good);
    const result = await runRatefile(['check', '--json', 'good.xml', brokenPath, 'missing.xml'], dir);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as JsonReport;
    expect(report.ok).toBe(false);
    expect(report.files.map((f) => [f.target, f.ok, f.items, f.errors])).toEqual([
      ['good.xml', true, 1, 0],
      [brokenPath, false, 7, 1],
      ['missing.xml', false, undefined, 1],
    ]);
    expect(report.files[1]?.findings.map((f) => f.item?.index)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(report.files[2]?.findings[0]).toEqual({
      severity: 'error',
      rule: 'read',
      message: 'cannot read: no such file',
    });
  });

  it('passes with warnings (exit 0) and ends several files with a summary', async () => {
    const { dir, write } = await project();
    await write('good.xml', good);
    await write('odd.xml', good.replace('USDTTRC20', 'USDTTRC2O'));
    const result = await runRatefile(['check', 'good.xml', 'odd.xml'], dir);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'odd.xml: 1 item, 1 warning, passes\n  warning line 5:5, item 1 (BTC → USDTTRC2O): unknown currency code "USDTTRC2O" in <to> (closest known: "USDTTRC20")\n',
    );
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe(
      '2 files checked: 0 with errors, 1 with warnings only, 1 clean',
    );
  });

  it('without a file is a usage error (exit 2)', async () => {
    const result = await runRatefile(['check'], process.cwd());
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("missing required argument 'file|url'");
  });
});

describe('ratefile check <url> on a loopback server', () => {
  let server: Server;
  let base: string;
  const held: (() => void)[] = [];
  beforeAll(async () => {
    server = createServer((request, response) => {
      const send = (status: number, headers: Record<string, string>, body: string | Buffer) => {
        response.writeHead(status, headers);
        response.end(body);
      };
      if (request.url === '/parserfile.xml') send(200, { 'Content-Type': 'application/xml', ETag: '"v1"' }, good);
      else if (request.url === '/broken.xml')
        send(
          200,
          { 'Content-Type': 'application/xml', 'Last-Modified': new Date(0).toUTCString() },
          readFileSync(brokenPath),
        );
      else if (request.url === '/html.xml') send(200, { 'Content-Type': 'text/html; charset=windows-1251' }, good);
      else if (request.url === '/rates.json')
        send(200, { 'Content-Type': 'application/json', ETag: '"j1"' }, jsonExport);
      else if (request.url === '/xml-typed.json')
        send(200, { 'Content-Type': 'application/xml', ETag: '"j1"' }, jsonExport);
      else if (request.url === '/json-typed.xml') send(200, { 'Content-Type': 'application/json', ETag: '"x1"' }, good);
      else if (request.url === '/slow.xml') held.push(() => response.destroy());
      else send(404, { 'Content-Type': 'text/plain' }, 'Not Found');
    });
    base = `http://127.0.0.1:${await listen(server, 0, '127.0.0.1')}`;
  });
  afterAll(async () => {
    for (const release of held) release();
    await new Promise((resolve) => server.close(resolve));
  });
  const check = (path: string, ...options: string[]) =>
    runRatefile(['check', ...options, `${base}${path}`], process.cwd(), { fetch: globalThis.fetch });

  it('a good file served right: clean, exit 0', async () => {
    expect(await check('/parserfile.xml')).toMatchObject({
      code: 0,
      stdout: `${base}/parserfile.xml: 1 item, clean\n`,
    });
  });

  it('a broken file over HTTP: the same findings as on disk', async () => {
    const result = await check('/broken.xml', '--json');
    expect(result.code).toBe(1);
    expect((JSON.parse(result.stdout) as JsonReport).files[0]?.errors).toBe(1);
  });

  it('fails on the wrong content type (monitors refuse it), warns about a foreign charset and no validators', async () => {
    const result = await check('/html.xml');
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      'error   Content-Type is text/html; charset=windows-1251; monitors expect application/xml',
    );
    expect(result.stdout).toContain('warning Content-Type says charset=windows-1251; the file must be UTF-8');
    expect(result.stdout).toContain('warning no ETag or Last-Modified header');
  });

  it('judges the Content-Type by the format of the body: application/json for JSON, application/xml for XML', async () => {
    expect(await check('/rates.json')).toMatchObject({ code: 0, stdout: `${base}/rates.json: 1 item, clean\n` });
    const xmlTyped = await check('/xml-typed.json');
    expect(xmlTyped.code).toBe(1);
    expect(xmlTyped.stdout).toContain(
      'error   Content-Type is application/xml; monitors expect application/json for a JSON file',
    );
    const jsonTyped = await check('/json-typed.xml');
    expect(jsonTyped.code).toBe(1);
    expect(jsonTyped.stdout).toContain(
      'error   Content-Type is application/json; monitors expect application/xml for an XML file',
    );
  });

  it('an HTTP error is an error, the body unchecked', async () => {
    const result = await check('/nothing.xml');
    expect(result.code).toBe(1);
    expect(result.stdout).toBe(
      `${base}/nothing.xml: 1 error, FAILS\n  error   HTTP 404 Not Found: monitors need 200 with the file\n`,
    );
  });

  it('gives up after --timeout', async () => {
    const started = Date.now();
    const result = await check('/slow.xml', '--timeout', '0.3');
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('error   cannot fetch: no answer within 0.3 s');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('a closed port is an error naming the cause', async () => {
    const closed = createServer();
    const port = await listen(closed, 0, '127.0.0.1');
    await new Promise((resolve) => closed.close(resolve));
    const result = await runRatefile(['check', `http://127.0.0.1:${port}/parserfile.xml`], process.cwd(), {
      fetch: globalThis.fetch,
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/error {3}cannot fetch: fetch failed: connect ECONNREFUSED/);
  });
});

describe('ratefile build checks every file before publishing it', () => {
  const config = (reserve: string) => `sources:
  backoffice: { type: file, path: quotes.json }
currencies:
  BTC: { reserve: "3" }
  USDTTRC20: { precision: 2, reserve: "100000" }
  SBERRUB: { reserve: "${reserve}" }
defaults:
  margin: 1.5%
directions:
  - { from: BTC, to: USDTTRC20 }
  - { from: BTC, to: SBERRUB, tags: [cash] }
`;

  it('refuses the failing files, keeps their last good version, writes the others, and records the failure', async () => {
    const { dir, configPath } = await project({ 'ratefile.config.yaml': config('5000000') });
    expect((await runRatefile(['build'], dir)).code).toBe(0);
    const before = await readFile(join(dir, 'public', 'parserfile.xml'), 'utf8');
    expect(before).toContain('<to>SBERRUB</to>');

    // Validation keeps unknown labels out of a config, so the gate is a safety net for what slips past
    // it: a direction given a label no monitor knows, as a bug in pricing or selection could.
    const loaded = await loadConfig(configPath);
    const slipped: Config = {
      ...loaded,
      directions: loaded.directions.map((d) => (d.to.code === 'SBERRUB' ? { ...d, params: ['bogus' as Label] } : d)),
    };
    await writeFile(join(dir, 'public', 'affiliatefile.xml'), 'stale');
    await expect(runCycle(slipped, join(dir, 'public'), { now: () => new Date() })).rejects.toThrow(
      'not published, failed the export check (last good file kept): parserfile.xml (1 error)',
    );
    // The refused file is the last good one; the export without that direction (cash is excluded there) was published.
    expect(await readFile(join(dir, 'public', 'parserfile.xml'), 'utf8')).toBe(before);
    const affiliate = await readFile(join(dir, 'public', 'affiliatefile.xml'), 'utf8');
    expect(affiliate).toContain('<rates>');
    expect(affiliate).not.toContain('SBERRUB</to>');
    // The status says the build failed and why.
    const status = await runRatefile(['status', '--json'], dir);
    expect(status.code).toBe(1);
    expect((JSON.parse(status.stdout) as { lastBuild: { ok: boolean; error: string } }).lastBuild).toMatchObject({
      ok: false,
      error: expect.stringMatching(/parserfile\.xml \(1 error\).*item 2 \(BTC → SBERRUB\)/) as unknown,
    });
  });

  it('a reserve below the last decimal place is held back by pricing, not published as 0', async () => {
    const { dir } = await project({ 'ratefile.config.yaml': config('0.004') });
    const result = await runRatefile(['build'], dir);
    // Withheld for a fault (kind reserve): health is degraded, so the build exits 1 as `status` would.
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'held back BTC → SBERRUB (directions[1]): no reserve of SBERRUB (0.004 at 2 decimals)',
    );
    expect(await readFile(join(dir, 'public', 'parserfile.xml'), 'utf8')).not.toContain('SBERRUB');
  });
});

describe('ratefile check --codes-from <info.zip>', () => {
  const newCoin = good.replace('<from>BTC</from>', '<from>NEWCOINBEP20</from>');
  const json =
    '{"version": "1.3", "currencies": {"list": {"1": "NEWCOINBEP20", "2": "USDTTRC20"}}, "exchange": {"1": {"to": {"2": {"xr": -5, "amount": "100", "max": 1}}}}}\n';

  it("counts a live BestChange list's codes as known, in classic and JSON files alike", async () => {
    const { dir, write } = await project();
    await write('new.xml', newCoin);
    await write('new.json', json);
    const before = await runRatefile(['check', 'new.xml', 'new.json'], dir);
    expect(before.stdout).toContain('unknown currency code "NEWCOINBEP20" in <from>');
    expect(before.stdout).toContain(
      'new.json: 1 item, 1 warning, passes\n  warning unknown currency code "NEWCOINBEP20"',
    );
    await writeFile(
      join(dir, 'info.zip'),
      dump({ ...base, 'bm_cycodes.dat': '1;SBERRUB\n2;BTC\n3;CASHUSD\n4;NEWCOINBEP20\n' }),
    );
    const after = await runRatefile(['check', '--codes-from', 'info.zip', 'new.xml', 'new.json'], dir);
    expect(after).toEqual({
      code: 0,
      stdout:
        'new.xml: 1 item, clean\nnew.json: 1 item, clean\n2 files checked: 0 with errors, 0 with warnings only, 2 clean\n',
      stderr: '',
    });
  });

  it('is a usage error naming the file when it is missing or not an info.zip', async () => {
    const { dir, write } = await project();
    await write('new.xml', newCoin);
    await write('notzip.zip', 'hello');
    const missing = await runRatefile(['check', '--codes-from', 'nothing.zip', 'new.xml'], dir);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^ratefile: --codes-from "nothing\.zip": cannot read it: ENOENT/);
    const broken = await runRatefile(['check', '--codes-from', 'notzip.zip', 'new.xml'], dir);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/^ratefile: --codes-from "notzip\.zip": expected a BestChange info\.zip: /);
  });
});
