// The Node.js line check, run by bin/ratefile.js (and by npm start's compile step) before anything an older Node
// might fail to parse or import. The supported range is package.json's `engines.node`, read here: one fact in one
// place. Plain JavaScript with no dependency, so it runs on any Node that can load an ES module.
import { readFileSync } from 'node:fs';

/** `[major, minor, patch]` of `20.19.0`, `v18.20.4` or `25.0.0-nightly…`; undefined for anything else. */
function parseVersion(text) {
  const match = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:[-+].*)?$/.exec(text.trim());
  if (!match) return undefined;
  return [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)];
}

function compare(a, b) {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

/** One comparator (`^20.19.0`, `>=18`, `<25`, `~22.1`, `22.12.0`) as a test of a version. */
function comparator(text) {
  const match = /^(\^|~|>=|<=|>|<|=)?\s*(.+)$/.exec(text);
  const version = match && parseVersion(match[2]);
  if (!version) throw new Error(`node-check: cannot read the version range part "${text}"`);
  const [major, minor] = version;
  switch (match[1]) {
    case '^':
      return (v) => compare(v, version) >= 0 && v[0] === major;
    case '~':
      return (v) => compare(v, version) >= 0 && v[0] === major && v[1] === minor;
    case '>=':
      return (v) => compare(v, version) >= 0;
    case '<=':
      return (v) => compare(v, version) <= 0;
    case '>':
      return (v) => compare(v, version) > 0;
    case '<':
      return (v) => compare(v, version) < 0;
    default:
      return (v) => compare(v, version) === 0;
  }
}

/**
 * Whether `version` lies in `range`: alternatives joined by `||`, each a space-separated list of comparators that
 * must all hold (the subset of npm's range syntax that `engines` fields use). Throws on a range it cannot read.
 */
export function satisfies(version, range) {
  const parsed = parseVersion(version);
  if (!parsed) throw new Error(`node-check: cannot read the version "${version}"`);
  const alternatives = range.split('||').map((part) => part.trim().split(/\s+/).filter(Boolean).map(comparator));
  return alternatives.some((tests) => tests.length > 0 && tests.every((test) => test(parsed)));
}

/** The range for people: `^20.19.0 || ^22.12.0 || ^24.0.0` → `20.19+, 22.12+ or 24`. */
export function describeRange(range) {
  const lines = range.split('||').map((part) => {
    const caret = /^\^(\d+)\.(\d+)\.(\d+)$/.exec(part.trim());
    if (!caret) return part.trim();
    const [, major, minor, patch] = caret;
    if (patch !== '0') return `${major}.${minor}.${patch}+`;
    return minor === '0' ? major : `${major}.${minor}+`;
  });
  return lines.length === 1 ? lines[0] : `${lines.slice(0, -1).join(', ')} or ${lines.at(-1)}`;
}

/** The newest major line the range accepts (from its `^`, `~`, `>=` and exact parts): what to install. */
function newestLine(range) {
  const majors = range
    .split(/\s*\|\|\s*|\s+/)
    .map((part) => /^(?:\^|~|>=|=)?v?(\d+)/.exec(part))
    .filter(Boolean)
    .map((match) => Number(match[1]));
  return majors.length > 0 ? Math.max(...majors) : undefined;
}

/** The refusal for Node `version` under `range`, one line; undefined when the version is supported. */
export function refusal(version, range) {
  if (satisfies(version, range)) return undefined;
  const line = newestLine(range);
  const install =
    line === undefined ? 'https://nodejs.org/en/download' : `https://nodejs.org/en/download, or nvm install ${line}`;
  // A line newer than any the range names may well work: say how to try it (an older one cannot parse dist/).
  const newer =
    line !== undefined && parseVersion(version)[0] > line ? '; RATEFILE_IGNORE_ENGINES=1 tries it anyway' : '';
  return `ratefile needs Node.js ${describeRange(range)}; this is Node ${version.replace(/^v/, '')}. Install a supported line (${install})${newer}.`;
}

/** package.json's `engines.node`, next to this folder (a clone, the package, the container image alike). */
export function enginesRange() {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  return manifest.engines.node;
}

/**
 * Exit 1 with the refusal on stderr when this Node is outside the range. RATEFILE_IGNORE_ENGINES=1 runs anyway (a
 * line newer than the range, tried at one's own risk), saying so once.
 */
export function refuseUnsupportedNode() {
  const range = enginesRange();
  const message = refusal(process.versions.node, range);
  if (message === undefined) return;
  if (process.env.RATEFILE_IGNORE_ENGINES === '1') {
    process.stderr.write(`warning: running anyway (RATEFILE_IGNORE_ENGINES=1): ${message}\n`);
    return;
  }
  process.stderr.write(`${message}\n`);
  process.exit(1);
}
