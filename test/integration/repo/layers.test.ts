// The layering of src/ (AGENTS.md "Layering") as .dependency-cruiser.cjs states it: the real tree keeps to it, and
// the rules do catch what they forbid (a circle through type imports, an import upward, a module of no layer), run
// by the real depcruise binary on a planted tree.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const config = join(root, '.dependency-cruiser.cjs');
const depcruise = join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');

function cruise(cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [depcruise, 'src', '--config', config, '--output-type', 'err'],
      { cwd, timeout: 60_000 },
      (error, stdout, stderr) => {
        done({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` });
      },
    );
  });
}

const temps: string[] = [];
afterAll(async () => {
  await Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function plant(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ratefile-layers-'));
  temps.push(dir);
  const tsconfig = {
    compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', strict: true },
    include: ['src'],
  };
  await writeFile(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

describe('layering (.dependency-cruiser.cjs)', () => {
  it('src/ has no import circle and no import from a lower layer to a higher one', async () => {
    const { code, output } = await cruise(root);
    expect(output).toContain('no dependency violations found');
    expect(code).toBe(0);
  }, 60_000);

  it('catches a circle made of type imports and the model importing a step', async () => {
    const dir = await plant({
      'src/model/config.ts':
        "import type { HealthPolicy } from '../pure/status/health.js';\nexport interface Config { health: HealthPolicy }\n",
      'src/pure/status/health.ts':
        "import type { Status } from './status.js';\nexport interface HealthPolicy { s?: Status }\n",
      'src/pure/status/status.ts':
        "import type { HealthPolicy } from './health.js';\nexport interface Status { p?: HealthPolicy }\n",
    });
    const { code, output } = await cruise(dir);
    expect(code).not.toBe(0);
    expect(output).toMatch(/no-circular: src\/pure\/status\/(health|status)\.ts →/);
    expect(output).toContain('model-imports-model: src/model/config.ts → src/pure/status/health.ts');
  }, 60_000);

  it('catches a pure step importing I/O, I/O importing the service, the service importing a command, and a module outside the layer folders', async () => {
    const dir = await plant({
      'src/pure/pricing/price.ts':
        "import type { SourceReport } from '../../io/quotes/quotes.js';\nexport type R = SourceReport;\n",
      'src/io/quotes/quotes.ts':
        "import { start } from '../../service/start/service.js';\nexport interface SourceReport { name: string }\nexport const go = start;\n",
      'src/service/start/service.ts': "import { run } from '../../cli.js';\nexport const start = run;\n",
      'src/cli.ts': 'export const run = () => 0;\n',
      'src/stray.ts': "import { run } from './cli.js';\nexport const stray = run;\n",
      'src/helpers/loose.ts': "import { run } from '../cli.js';\nexport const loose = run;\n",
    });
    const { code, output } = await cruise(dir);
    expect(code).not.toBe(0);
    expect(output).toContain('pure-no-io: src/pure/pricing/price.ts → src/io/quotes/quotes.ts');
    expect(output).toContain('io-no-service: src/io/quotes/quotes.ts → src/service/start/service.ts');
    expect(output).toContain('service-no-commands: src/service/start/service.ts → src/cli.ts');
    expect(output).toContain('layer-unknown: src/stray.ts → src/cli.ts');
    expect(output).toContain('layer-unknown: src/helpers/loose.ts → src/cli.ts');
  }, 60_000);
});
