// bin/node-check.js: the range check bin/ratefile.js runs before loading dist/, on the range package.json's engines
// field gives (read, not copied). Odd lines (23, 25) are outside `^22.12.0 || ^24.0.0` and refused like 18: engines
// is the promise CI keeps, and a line newer than it is told how to try anyway. On a real Node 18: .ci/run.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

interface NodeCheck {
  satisfies(version: string, range: string): boolean;
  describeRange(range: string): string;
  refusal(version: string, range: string): string | undefined;
  enginesRange(): string;
}
// A plain JavaScript module (it must run on any Node); imported by URL so the compiler does not look for its types.
const checkUrl = new URL('../../../bin/node-check.js', import.meta.url).href;
const check = (await import(checkUrl)) as NodeCheck;
const manifest = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
  engines: { node: string };
};
const range = check.enginesRange();

describe("package.json's engines range", () => {
  it('is the range the check reads', () => {
    expect(range).toBe(manifest.engines.node);
    expect(range).toBe('^20.19.0 || ^22.12.0 || ^24.0.0');
  });

  it.each([
    ['18.20.4', false],
    ['18.20.8', false],
    ['20.18.0', false],
    ['20.18.3', false],
    ['20.19.0', true],
    ['20.20.2', true],
    ['21.7.3', false],
    ['22.11.0', false],
    ['22.12.0', true],
    ['22.21.1', true],
    ['23.11.0', false],
    ['24.0.0', true],
    ['24.11.1', true],
    ['25.2.0', false],
    ['v22.12.0', true],
  ])('Node %s: supported %s', (version, supported) => {
    expect(check.satisfies(version, range)).toBe(supported);
    expect(check.refusal(version, range) === undefined).toBe(supported);
  });

  it('is said for people as package.json says it, and the README and getting started say the same', () => {
    expect(check.describeRange(range)).toBe('20.19+, 22.12+ or 24');
    for (const page of ['README.md', 'docs/getting-started.md']) {
      const text = readFileSync(new URL(`../../../${page}`, import.meta.url), 'utf8');
      expect(text, page).toContain(`Requires Node.js ${check.describeRange(range)}`);
    }
  });
});

describe('the refusal', () => {
  it('is one line: what is needed, what this is, what to install', () => {
    expect(check.refusal('18.20.4', range)).toBe(
      'ratefile needs Node.js 20.19+, 22.12+ or 24; this is Node 18.20.4. ' +
        'Install a supported line (https://nodejs.org/en/download, or nvm install 24).',
    );
  });

  it('tells a line newer than the range how to try it anyway, and an older one not', () => {
    expect(check.refusal('25.2.0', range)).toMatch(
      /this is Node 25\.2\.0\. .*; RATEFILE_IGNORE_ENGINES=1 tries it anyway\.$/,
    );
    expect(check.refusal('23.11.0', range)).not.toContain('RATEFILE_IGNORE_ENGINES');
    expect(check.refusal('18.20.4', range)).not.toContain('RATEFILE_IGNORE_ENGINES');
  });
});

describe('the range syntax', () => {
  it.each([
    ['>=18', '18.0.0', true],
    ['>=18', '17.9.9', false],
    ['>=20.19.0 <21', '20.19.1', true],
    ['>=20.19.0 <21', '21.0.0', false],
    ['~22.12.0', '22.12.9', true],
    ['~22.12.0', '22.13.0', false],
    ['22.12.0', '22.12.0', true],
    ['>20 || =18.1.0', '18.1.0', true],
    ['<=20', '20.0.0', true],
    ['^24', '24.3.0', true],
  ])('%s with %s: %s', (text, version, expected) => {
    expect(check.satisfies(version, text)).toBe(expected);
  });

  it('refuses a range it cannot read rather than guessing', () => {
    expect(() => check.satisfies('20.19.0', '20.x')).toThrow(/cannot read the version range part "20.x"/);
    expect(() => check.satisfies('twenty', range)).toThrow(/cannot read the version "twenty"/);
  });
});
