// publishFiles puts an export's compressed copies in place before the export itself (src/io/build/publish.ts
// placeSet): a server that finds the new .xml finds its .gz and .br beside it, never an older build's. Watched at
// each rename through `beforePlace`, which is asked right before each file goes into place.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { publishFiles } from '../../../../src/io/build/publish.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

const document = (label: string) => Buffer.from(`<?xml version="1.0"?>\n<rates><!-- ${label} --></rates>\n`);

describe('the order files go into place', () => {
  it('the .gz and .br of the new build are in place before its export is', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ratefile-order-'));
    dirs.push(dir);
    await publishFiles([{ file: 'parserfile.xml', bytes: document('build 1') }], dir);
    const next = document('build 2');
    const placed: string[] = [];
    const copiesAtExport: string[] = [];
    await publishFiles([{ file: 'parserfile.xml', bytes: next }], dir, {
      beforePlace: async (path) => {
        placed.push(basename(path));
        if (!path.endsWith('.xml')) return;
        const gz = gunzipSync(await readFile(`${path}.gz`));
        const br = brotliDecompressSync(await readFile(`${path}.br`));
        copiesAtExport.push(gz.toString(), br.toString());
      },
    });
    expect(placed.at(-1)).toBe('parserfile.xml');
    expect(placed.slice(0, 2).sort()).toEqual(['parserfile.xml.br', 'parserfile.xml.gz']);
    expect(copiesAtExport).toEqual([next.toString(), next.toString()]);
  });
});
