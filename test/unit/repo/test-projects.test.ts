// The quick loop stays quick and the suite stays green under load (issue 45.31): CPU-bound tests that build big
// inputs on purpose (100,000 config problems, 20,000 directions' memory, days of dashboard history) are
// `*.heavy.test.ts`, left out of `npm run test:quick` and run by `npm test` in the `heavy` project, whose limit only
// stops a hang. No unit or heavy test sets a timeout of its own, which would put back a limit load can break.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProjectConfiguration } from 'vitest/config';
import { describe, expect, it } from 'vitest';
import config from '../../../vitest.config.js';

const root = join(import.meta.dirname, '../../..');
const projects = (config.test?.projects ?? []) as TestProjectConfiguration[];
const project = (name: string) => {
  const found = projects.find((each) => typeof each === 'object' && 'test' in each && each.test?.name === name);
  if (!found || typeof found !== 'object' || !('test' in found) || !found.test) throw new Error(`no project ${name}`);
  return found.test;
};
const files = (folder: string) =>
  readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => `${folder}/${name}`);

describe('vitest projects', () => {
  it('the heavy files are out of the quick loop and in npm test, under a limit that only stops a hang', () => {
    const heavy = files('test/unit').filter((name) => name.endsWith('.heavy.test.ts'));
    expect(heavy.length).toBeGreaterThan(0);
    expect(project('unit').exclude).toContain('test/unit/**/*.heavy.test.ts');
    expect(project('heavy').include).toEqual(['test/unit/**/*.heavy.test.ts']);
    expect(project('heavy').setupFiles).toEqual(project('unit').setupFiles);
    expect(project('heavy').testTimeout).toBeGreaterThanOrEqual(600_000);
    expect(project('heavy').hookTimeout).toBeGreaterThanOrEqual(600_000);
  });

  it('no unit or heavy test sets a timeout of its own', () => {
    const own = /\btimeout:\s*\d[\d_]*\s*,?\s*\}|\},\s*\d[\d_]{3,}\s*\);/;
    const setting = [...files('test/unit'), ...files('test/support')].filter((name) =>
      own.test(readFileSync(join(root, name), 'utf8')),
    );
    expect(setting).toEqual([]);
  });
});
