// publishFiles on a real file system: atomic replacement by rename, unchanged files left alone (all three copies),
// mixed copies repaired, failures as E_PUBLISH; removeExports.
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeProject, type Project } from '../../support/project.js';
import { offlineFetch, runRatefile } from '../../support/run-cli.js';
import { loadConfig } from '../../../src/io/config/load.js';
import { summarize } from '../../../src/pure/status/cycle-lines.js';
import { runCycle } from '../../../src/io/build/cycle.js';
import { isRatefileError, type RatefileError } from '../../../src/base/errors.js';
import { publishFiles, removeExports } from '../../../src/io/build/publish.js';
import type { OutputFile } from '../../../src/model/config.js';

/** An export as published: the file and its gzip and brotli copies. */
const withCompressed = (files: readonly string[]) => files.flatMap((file) => [file, `${file}.br`, `${file}.gz`]).sort();

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'ratefile-publish-'));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const xml = (text: string) => Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>\n<rates>${text}</rates>\n`);

const files = (parser: string, ref: string): OutputFile[] => [
  { file: 'parserfile.xml', bytes: xml(parser) },
  { file: 'reffile.xml', bytes: xml(ref) },
];

async function identity(path: string): Promise<{ ino: number; mtimeMs: number }> {
  const { ino, mtimeMs } = await stat(path);
  return { ino, mtimeMs };
}

async function rejection(promise: Promise<unknown>): Promise<RatefileError> {
  try {
    await promise;
  } catch (error) {
    if (isRatefileError(error)) return error;
    throw new Error(`expected a RatefileError, got ${String(error)}`);
  }
  throw new Error('expected publishFiles to fail');
}

describe('publishFiles', () => {
  it('creates the output folder (nested) and writes the exact bytes', async () => {
    const out = join(root, 'a', 'b', 'public');
    const result = await publishFiles(files('<item/>', ''), out);
    expect(result).toEqual({ written: ['parserfile.xml', 'reffile.xml'], unchanged: [] });
    expect(await readFile(join(out, 'parserfile.xml'))).toEqual(xml('<item/>'));
    expect(await readFile(join(out, 'reffile.xml'))).toEqual(xml(''));
    expect((await readdir(out)).sort()).toEqual(withCompressed(['parserfile.xml', 'reffile.xml']));
  });

  it('leaves a file with the same bytes alone: reported unchanged, same inode and mtime', async () => {
    const out = join(root, 'public');
    await publishFiles(files('<item/>', ''), out);
    const before = await identity(join(out, 'parserfile.xml'));
    // Long enough for a rewrite to show in the mtime on any file system with ms timestamps.
    await new Promise((resolve) => setTimeout(resolve, 20));

    const result = await publishFiles(files('<item/>', ''), out);
    expect(result).toEqual({ written: [], unchanged: ['parserfile.xml', 'reffile.xml'] });
    expect(await identity(join(out, 'parserfile.xml'))).toEqual(before);
  });

  it('replaces changed bytes by rename (a new inode), and only the changed file', async () => {
    const out = join(root, 'public');
    await publishFiles(files('<item/>', ''), out);
    const parser = await identity(join(out, 'parserfile.xml'));
    const ref = await identity(join(out, 'reffile.xml'));

    const result = await publishFiles(files('<item/><item/>', ''), out);
    expect(result).toEqual({ written: ['parserfile.xml'], unchanged: ['reffile.xml'] });
    expect(await readFile(join(out, 'parserfile.xml'))).toEqual(xml('<item/><item/>'));
    // A rename puts a new file in place; writing into the old one would keep its inode.
    expect((await identity(join(out, 'parserfile.xml'))).ino).not.toBe(parser.ino);
    expect(await identity(join(out, 'reffile.xml'))).toEqual(ref);
  });

  it('repairs an export whose compressed copies are from another build (a crash between renames): written, not unchanged', async () => {
    const out = join(root, 'public');
    // What a build killed just before its .xml rename leaves: version A's file beside version B's copies.
    await publishFiles(files('<item n="B"/>', ''), out);
    const copies = {
      gz: await readFile(join(out, 'parserfile.xml.gz')),
      br: await readFile(join(out, 'parserfile.xml.br')),
    };
    await publishFiles(files('<item n="A"/>', ''), out);
    await writeFile(join(out, 'parserfile.xml.gz'), copies.gz);
    await writeFile(join(out, 'parserfile.xml.br'), copies.br);

    const result = await publishFiles(files('<item n="A"/>', ''), out);
    expect(result).toEqual({ written: ['parserfile.xml'], unchanged: ['reffile.xml'] });
    expect(gunzipSync(await readFile(join(out, 'parserfile.xml.gz')))).toEqual(xml('<item n="A"/>'));
    expect(brotliDecompressSync(await readFile(join(out, 'parserfile.xml.br')))).toEqual(xml('<item n="A"/>'));
    expect(await readFile(join(out, 'parserfile.xml'))).toEqual(xml('<item n="A"/>'));
  });

  it.each(['gz', 'br'])('writes an export again when its .%s copy is missing or truncated', async (suffix) => {
    const out = join(root, 'public');
    await publishFiles(files('<item/>', ''), out);
    const copy = join(out, `parserfile.xml.${suffix}`);
    const bytes = await readFile(copy);
    await writeFile(copy, bytes.subarray(0, bytes.length - 2));
    expect(await publishFiles(files('<item/>', ''), out)).toEqual({
      written: ['parserfile.xml'],
      unchanged: ['reffile.xml'],
    });
    expect(await readFile(copy)).toEqual(bytes);
    await rm(copy);
    expect(await publishFiles(files('<item/>', ''), out)).toEqual({
      written: ['parserfile.xml'],
      unchanged: ['reffile.xml'],
    });
    expect(await readFile(copy)).toEqual(bytes);
  });

  it('removeExports takes an export and its copies away, nothing else, and refuses names that are not exports', async () => {
    const out = join(root, 'public');
    await publishFiles(files('<item/>', ''), out);
    await writeFile(join(out, 'notes.md'), 'unrelated\n');
    await removeExports(['reffile.xml', 'never-published.xml'], out);
    expect((await readdir(out)).sort()).toEqual(['notes.md', ...withCompressed(['parserfile.xml'])].sort());
    for (const name of ['../x.xml', 'notes.md'])
      expect((await rejection(removeExports([name], out))).code).toBe('E_PUBLISH');
    expect(await readFile(join(out, 'notes.md'), 'utf8')).toBe('unrelated\n');
  });

  it('leaves no temporary dotfiles behind after many publishes', async () => {
    const out = join(root, 'public');
    for (let i = 0; i < 20; i++) await publishFiles(files(`<item n="${i}"/>`, i % 3 === 0 ? '<item/>' : ''), out);
    expect((await readdir(out)).sort()).toEqual(withCompressed(['parserfile.xml', 'reffile.xml']));
  });

  it('fails with E_PUBLISH when the output path is a file, and leaves that file untouched', async () => {
    const out = join(root, 'public');
    await writeFile(out, 'not a folder\n');
    const error = await rejection(publishFiles(files('<item/>', ''), out));
    expect(error.code).toBe('E_PUBLISH');
    expect(error.message).toContain(out);
    expect(await readFile(out, 'utf8')).toBe('not a folder\n');
    expect(await readdir(root)).toEqual(['public']);
  });

  it('fails with E_PUBLISH when an export name is taken by a folder, removes its temporary file, and touches no other file', async () => {
    const out = join(root, 'public');
    await publishFiles(files('<item/>', ''), out);
    const ref = await identity(join(out, 'reffile.xml'));
    await rm(join(out, 'parserfile.xml'));
    await mkdir(join(out, 'parserfile.xml'));
    await writeFile(join(out, 'parserfile.xml', 'keep.txt'), 'inside\n');
    await writeFile(join(out, 'notes.md'), 'unrelated\n');

    const error = await rejection(publishFiles(files('<item/><item/>', ''), out));
    expect(error.code).toBe('E_PUBLISH');
    expect(error.message).toContain(join(out, 'parserfile.xml'));
    expect((await readdir(out)).sort()).toEqual(
      ['notes.md', ...withCompressed(['parserfile.xml', 'reffile.xml'])].sort(),
    );
    expect(await readFile(join(out, 'parserfile.xml', 'keep.txt'), 'utf8')).toBe('inside\n');
    expect(await readFile(join(out, 'notes.md'), 'utf8')).toBe('unrelated\n');
    expect(await identity(join(out, 'reffile.xml'))).toEqual(ref);
  });
});

describe('an export no longer declared', () => {
  const projects: Project[] = [];
  afterEach(async () => {
    await Promise.all(projects.splice(0).map((made) => made.remove()));
  });
  const now = () => new Date('2026-11-21T12:00:30Z');
  const cycle = async (made: Project, out = join(made.dir, 'public')) =>
    runCycle(await loadConfig(made.configPath), out, { now, fetch: offlineFetch });

  it('is removed at the next build with its copies, the log says so, and files ratefile never published stay', async () => {
    const made = await makeProject();
    projects.push(made);
    const out = join(made.dir, 'public');
    // Files beside the exports that ratefile did not write, one of them looking just like an export.
    await mkdir(out, { recursive: true });
    await writeFile(join(out, 'notes.md'), 'unrelated\n');
    await writeFile(join(out, 'legacy.xml'), '<rates/>\n');
    await cycle(made);
    expect((await readdir(out)).sort()).toEqual(
      ['legacy.xml', 'notes.md', ...withCompressed(['affiliatefile.xml', 'parserfile.xml', 'reffile.xml'])].sort(),
    );

    await rm(join(made.dir, 'templates', 'reffile.yaml'));
    const outcome = await runRatefile(['build', '--config', made.configPath], made.dir, { now, fetch: offlineFetch });
    expect(outcome.code, outcome.stderr).toBe(0);
    expect(outcome.stderr).toMatch(/info build: .*; removed reffile\.xml \(no template declares it any more\);/);
    expect((await readdir(out)).sort()).toEqual(
      ['legacy.xml', 'notes.md', ...withCompressed(['affiliatefile.xml', 'parserfile.xml'])].sort(),
    );
    expect(await readFile(join(out, 'legacy.xml'), 'utf8')).toBe('<rates/>\n');

    // Said once: the next build has nothing to remove; declared again, the export comes back.
    expect((await cycle(made)).removed).toEqual([]);
    await made.write('templates/reffile.yaml', 'include: { tags: [ref] }\n');
    const back = await cycle(made);
    expect(back.publish.written).toEqual(['reffile.xml']);
    expect(summarize(back)).not.toMatch(/removed/);
  });

  it('is removed only from the output folders ratefile published it to', async () => {
    const made = await makeProject();
    projects.push(made);
    const [first, second] = [join(made.dir, 'first'), join(made.dir, 'second')];
    await cycle(made, first);
    await rm(join(made.dir, 'templates', 'reffile.yaml'));
    // Never published to the second folder: a reffile.xml there is someone else's.
    await mkdir(second, { recursive: true });
    await writeFile(join(second, 'reffile.xml'), '<rates/>\n');
    expect((await cycle(made, second)).removed).toEqual([]);
    expect(await readFile(join(second, 'reffile.xml'), 'utf8')).toBe('<rates/>\n');
    expect((await cycle(made, first)).removed).toEqual(['reffile.xml']);
    expect((await readdir(first)).sort()).toEqual(withCompressed(['affiliatefile.xml', 'parserfile.xml']));
  });
});
