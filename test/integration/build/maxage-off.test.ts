// `maxAge: "off"` under `start` (issue 33 item 6): a quotes file caught half-written (or `cp`'d over) keeps the last
// good quotes standing in, the failed read logged and health degraded, instead of withholding every direction until
// the next good read.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectsPerTest, sampleConfig } from '../../support/project.js';
import { servicesPerTest } from '../../support/service.js';

const project = projectsPerTest();
const start = servicesPerTest();

const config = `${sampleConfig.replace('path: quotes.json }', 'path: quotes.json, maxAge: "off" }')}schedule: "0 */10 * * * *"\n`;

/** The items of the published parserfile.xml. */
const items = async (dir: string) =>
  ((await readFile(join(dir, 'public', 'parserfile.xml'), 'utf8')).match(/<item>/g) ?? []).length;

describe('maxAge "off" under start', () => {
  it('a half-written quotes.json: the last good quotes stand in, nothing is withheld, the failure is reported', async () => {
    const made = await project({ 'ratefile.config.yaml': config });
    let log = '';
    const service = await start(made, { log: (text) => (log += text) });
    const before = await items(made.dir);
    expect(before).toBeGreaterThan(0);

    await writeFile(join(made.dir, 'quotes.json'), '{"quotes": [');
    await service.rebuild();
    expect(await items(made.dir)).toBe(before);
    expect(log).toMatch(
      /source backoffice failed: backoffice: .*quotes\.json: not valid JSON: .*\(using its last good quotes, fetched /,
    );
    expect(log).toMatch(
      / build: published 4 directions, 0 held back; .*parserfile\.xml 5 items \(unchanged\).*; failing sources: backoffice\n/,
    );
    const health = (await (await fetch(new URL('healthz', service.base))).json()) as {
      status?: string;
      reasons?: string[];
    };
    expect(JSON.stringify(health)).toContain('failing source: backoffice');
  });
});
