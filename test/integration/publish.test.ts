// publishFiles on a real file system: atomic replacement by rename, unchanged files left alone (all three copies),
// mixed copies repaired, failures as E_PUBLISH.
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isRatefileError, RatefileError } from '../../src/errors.js';
import { publishFiles, type OutputFile } from '../../src/publish.js';

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
    const copies = { gz: await readFile(join(out, 'parserfile.xml.gz')), br: await readFile(join(out, 'parserfile.xml.br')) };
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
    expect(await publishFiles(files('<item/>', ''), out)).toEqual({ written: ['parserfile.xml'], unchanged: ['reffile.xml'] });
    expect(await readFile(copy)).toEqual(bytes);
    await rm(copy);
    expect(await publishFiles(files('<item/>', ''), out)).toEqual({ written: ['parserfile.xml'], unchanged: ['reffile.xml'] });
    expect(await readFile(copy)).toEqual(bytes);
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
    await writeFile(join(out, 'notes.txt'), 'unrelated\n');

    const error = await rejection(publishFiles(files('<item/><item/>', ''), out));
    expect(error.code).toBe('E_PUBLISH');
    expect(error.message).toContain(join(out, 'parserfile.xml'));
    expect((await readdir(out)).sort()).toEqual(['notes.txt', ...withCompressed(['parserfile.xml', 'reffile.xml'])].sort());
    expect(await readFile(join(out, 'parserfile.xml', 'keep.txt'), 'utf8')).toBe('inside\n');
    expect(await readFile(join(out, 'notes.txt'), 'utf8')).toBe('unrelated\n');
    expect(await identity(join(out, 'reffile.xml'))).toEqual(ref);
  });
});
