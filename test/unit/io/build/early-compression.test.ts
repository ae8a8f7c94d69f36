// A cycle compresses each changed export as soon as it is rendered and publish writes those copies: one
// compression per changed file per cycle, none for an unchanged one, and a refused file's copy is never written.
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { brotliCompressSync, brotliDecompressSync, constants, gunzipSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import type { Compressed } from '../../../../src/io/build/compressions.js';
import { loadConfig } from '../../../../src/io/config/load.js';
import { runCycle } from '../../../../src/io/build/cycle.js';
import type { Label } from '../../../../src/base/config/fields.js';
import type { Config } from '../../../../src/model/config.js';
import { makeProject, type Project } from '../../../support/project.js';
import { offlineFetch } from '../../../support/run-cli.js';

const projects: Project[] = [];
afterEach(async () => {
  await Promise.all(projects.splice(0).map((made) => made.remove()));
});

const now = () => new Date('2026-11-21T12:00:30Z');
/** The sample project's exports, in the order the config lists (and the cycle renders) them. */
const exportsOf = ['affiliatefile.xml', 'parserfile.xml', 'reffile.xml'];

/**
 * A compression that counts the bytes it is asked to compress and keeps what it made: at levels other than
 * `compress`'s, so copies on disk equal to these were made by this call and no other. `fail`: these bytes'
 * compression rejects.
 */
function countingCompress(fail?: (bytes: Buffer) => boolean) {
  const calls: Buffer[] = [];
  const made: Compressed[] = [];
  const run = async (bytes: Buffer): Promise<Compressed> => {
    calls.push(bytes);
    if (fail?.(bytes)) throw new Error('compression failed');
    const result = {
      gzipped: gzipSync(bytes, { level: 1 }),
      brotli: brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } }),
    };
    made.push(result);
    return result;
  };
  return { calls, made, run };
}

async function setup() {
  const made = await makeProject();
  projects.push(made);
  const out = join(made.dir, 'public');
  const config = await loadConfig(made.configPath);
  const cycle = (compressWith: (bytes: Buffer) => Promise<Compressed>, using: Config = config) =>
    runCycle(using, out, { now, fetch: offlineFetch, compress: compressWith });
  return { made, out, config, cycle };
}

/** Inode and modification time of an export and its copies: a rewrite changes them. */
const identities = (out: string, files: readonly string[]) =>
  Promise.all(
    files.flatMap((file) =>
      [file, `${file}.gz`, `${file}.br`].map(async (name) => {
        const { ino, mtimeMs } = await stat(join(out, name));
        return `${name}:${ino}:${mtimeMs}`;
      }),
    ),
  );

describe('compression started as exports are rendered', () => {
  it('is the one compression publish writes: once per changed file per cycle', async () => {
    const { out, config, cycle } = await setup();
    // A first cycle records its exports in the state folder before it publishes: compressions started while
    // that record is still missing were started before publishing, as the exports were rendered.
    const record = join(config.stateDir, 'exports.json');
    const beforePublish: boolean[] = [];
    const counted = countingCompress();
    const result = await cycle(async (bytes) => {
      beforePublish.push(!existsSync(record));
      return counted.run(bytes);
    });
    expect(result.publish.written).toEqual(exportsOf);
    // Each export compressed once, its own bytes, in the order they were rendered, before publishing began.
    expect(counted.calls).toHaveLength(3);
    result.build.files.forEach((file, index) => expect(counted.calls[index]).toBe(file.bytes));
    expect(beforePublish).toEqual([true, true, true]);
    // What publish wrote is what those calls made: it compressed nothing again.
    for (const [index, file] of result.build.files.entries()) {
      const path = join(out, file.file);
      expect(await readFile(path)).toEqual(file.bytes);
      expect(await readFile(`${path}.gz`)).toEqual(counted.made[index]?.gzipped);
      expect(await readFile(`${path}.br`)).toEqual(counted.made[index]?.brotli);
      expect(gunzipSync(await readFile(`${path}.gz`))).toEqual(file.bytes);
      expect(brotliDecompressSync(await readFile(`${path}.br`))).toEqual(file.bytes);
    }
  });

  it('compresses nothing for unchanged exports and leaves their files alone', async () => {
    const { out, cycle } = await setup();
    await cycle(countingCompress().run);
    const before = await identities(out, exportsOf);
    const counted = countingCompress();
    const result = await cycle(counted.run);
    expect(result.publish).toEqual({ written: [], unchanged: exportsOf });
    expect(counted.calls).toHaveLength(0);
    expect(await identities(out, exportsOf)).toEqual(before);
  });

  it('compresses a changed export of the same size once, in publish, and leaves the others alone', async () => {
    const { out, cycle } = await setup();
    const first = await cycle(countingCompress().run);
    const parser = first.build.files.find((f) => f.file === 'parserfile.xml')?.bytes ?? Buffer.alloc(0);
    // Same length, other bytes: only comparing the contents tells it changed.
    await writeFile(join(out, 'parserfile.xml'), Buffer.alloc(parser.length, 'x'));
    const others = exportsOf.filter((file) => file !== 'parserfile.xml');
    const before = await identities(out, others);
    const counted = countingCompress();
    const result = await cycle(counted.run);
    expect(result.publish).toEqual({ written: ['parserfile.xml'], unchanged: others });
    expect(counted.calls).toEqual([parser]);
    expect(await readFile(join(out, 'parserfile.xml.gz'))).toEqual(counted.made[0]?.gzipped);
    expect(await identities(out, others)).toEqual(before);
  });

  it("never writes a refused file's early compression, and its failure fails nothing but the refusal", async () => {
    const { out, config, cycle } = await setup();
    await cycle(countingCompress().run);
    const refused = ['affiliatefile.xml', 'parserfile.xml'];
    const before = await identities(out, refused);
    const published = await Promise.all(refused.map((file) => readFile(join(out, `${file}.gz`))));
    // A label no monitor knows, as a bug past validation could give: the two exports with that direction fail the check.
    const slipped: Config = {
      ...config,
      directions: config.directions.map((d) => (d.from.code === 'SBERRUB' ? { ...d, params: ['bogus' as Label] } : d)),
    };
    const counted = countingCompress((bytes) => bytes.includes('bogus'));
    await expect(cycle(counted.run, slipped)).rejects.toThrow(
      'not published, failed the export check (last good file kept): affiliatefile.xml (1 error), parserfile.xml (1 error)',
    );
    // Compressed as soon as they were rendered (their size changed), then refused: the files on disk are the last good ones.
    expect(counted.calls.filter((bytes) => bytes.includes('bogus'))).toHaveLength(2);
    expect(await identities(out, refused)).toEqual(before);
    expect(await Promise.all(refused.map((file) => readFile(join(out, `${file}.gz`))))).toEqual(published);
  });
});
