// A private export (`private: true`, a Premium file only the exchanger's engine fetches) under `start`: served at its
// name, and its name shown nowhere the server answers (dashboard, its JSON, /healthz, /metrics) nor in the status file.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRateFile } from '../../unit/pure/exports/premium-parser.js';
import { projectsPerTest } from '../../support/project.js';
import { servicesPerTest } from '../../support/service.js';

const project = projectsPerTest();
const start = servicesPerTest();
const token = '7f3c9a41d2b86e05c1f4a9d3b7e26c18';
const file = `premium-${token}.txt`;

describe('a private Premium export under start', () => {
  it('is served as UTF-8 text at its name, and the name is *** on every page and in the status', async () => {
    const made = await project({
      'templates/premium.yaml': `format: premium-rates\nprivate: true\nfile: ${file}\n`,
    });
    const service = await start(made, { now: () => new Date() });
    const served = await fetch(new URL(file, service.base));
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect([...parseRateFile(await served.text()).values()].map((line) => line.title)).toEqual([
      'BTCSBERRUB',
      'BTCUSDTTRC20',
      'SBERRUBUSDTTRC20',
      'USDTTRC20CASHRUB',
    ]);
    for (const page of ['', 'dashboard.json', 'healthz', 'metrics']) {
      const response = await fetch(new URL(page, service.base));
      expect(response.status, page).toBe(200);
      const text = await response.text();
      expect(text, page).not.toContain(token);
      expect(text, page).toContain('parserfile.xml');
    }
    const status = await readFile(join(made.dir, '.ratefile', 'status.json'), 'utf8');
    expect(status).not.toContain(token);
    expect(status).toContain('parserfile.xml');
  });

  it('needs a file name with a random token', async () => {
    const made = await project({ 'templates/premium.yaml': 'format: premium-rates\nprivate: true\n' });
    const error = await start(made, { now: () => new Date() }).catch((caught: unknown) => caught);
    expect((error as { details?: string[] }).details).toContainEqual(
      expect.stringMatching(
        /templates\/premium\.yaml: file: a private export needs a file name with a random token of 16 or more letters and digits/,
      ),
    );
  });
});
