#!/usr/bin/env node
// `npm start`'s compile step (prestart), run in the project folder: compile src/ to dist/ only when dist/ is not
// already the compile of this tree. dist/.source-stamp holds two digests: of every input of the compile (src/**,
// tsconfig*.json, package.json's module type and TypeScript range, the installed TypeScript's version), by content
// (a git checkout changes mtimes, not content), and of dist/ as that compile left it (so a `npm run build` or a tsc
// by hand of another tree, or a file removed from dist/, is noticed). Compile when the stamp is missing or either
// digest differs; the stamp is removed before compiling and written only after tsc succeeds. `npm run build`, and so
// `npm test`, `npm run bench` and `npm pack`, always compile; this script is for starting.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { refuseUnsupportedNode } from '../bin/node-check.js';

// Before tsc: on an unsupported Node the refusal, not a compiler's error or a compile that cannot be run.
refuseUnsupportedNode();

const root = process.cwd();
const dist = join(root, 'dist');
const stampPath = join(dist, '.source-stamp');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const say = (line) => process.stderr.write(`${line}\n`);

/** Every file under `folder`, as paths relative to the root, sorted (the same order on every machine). */
function filesUnder(folder, skip = () => false) {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) =>
      relative(root, join(entry.parentPath ?? entry.path, entry.name))
        .split('\\')
        .join('/'),
    )
    .filter((path) => !skip(path))
    .sort();
}

/** One digest of the files' paths and contents, and of the named facts. */
function digest(paths, facts = {}) {
  const hash = createHash('sha256');
  hash.update(JSON.stringify(facts));
  for (const path of paths) {
    hash.update(`\0${path}\0`);
    hash.update(
      createHash('sha256')
        .update(readFileSync(join(root, path)))
        .digest('hex'),
    );
  }
  return hash.digest('hex');
}

function inputsDigest() {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const installed = JSON.parse(readFileSync(join(root, 'node_modules', 'typescript', 'package.json'), 'utf8'));
  const configs = readdirSync(root)
    .filter((name) => /^tsconfig.*\.json$/.test(name))
    .sort();
  return digest([...configs, ...filesUnder(join(root, 'src'))], {
    type: manifest.type ?? null,
    typescript: manifest.devDependencies?.typescript ?? manifest.dependencies?.typescript ?? null,
    compiler: installed.version,
  });
}

const distDigest = () => digest(filesUnder(dist, (path) => path === 'dist/.source-stamp'));

function readStamp() {
  try {
    return JSON.parse(readFileSync(stampPath, 'utf8'));
  } catch {
    return undefined;
  }
}

const distChanged = 'dist/ changed since the last compile';

/** Why dist/ must be compiled again, or undefined when it is the compile of this tree. */
function staleBecause(inputs) {
  const stamp = readStamp();
  if (stamp === undefined) return existsSync(join(dist, 'cli.js')) ? 'no record of the last compile' : 'first start';
  if (stamp.inputs !== inputs) return 'src changed';
  if (stamp.dist !== distDigest()) return distChanged;
  return undefined;
}

const seconds = (since) => {
  const elapsed = (performance.now() - since) / 1000;
  return `${elapsed < 10 ? elapsed.toFixed(1) : elapsed.toFixed(0)} s`;
};

if (!existsSync(tsc)) {
  say('ratefile: TypeScript is not installed here (node_modules/typescript): run `npm install` first.');
  process.exit(1);
}
const inputs = inputsDigest();
const reason = staleBecause(inputs);
if (reason === undefined) {
  say('ratefile: dist/ is up to date with src/, not compiling (`npm run build` compiles anyway).');
  process.exit(0);
}
say(`ratefile: compiling src/ to dist/ (${reason})…`);
rmSync(stampPath, { force: true });
// tsc's incremental record says what it emitted, not what is still there: when dist/ was changed under it, emit all.
if (reason === distChanged) rmSync(join(dist, '.tsbuildinfo'), { force: true });
const started = performance.now();
const child = spawn(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
child.on('close', (code, signal) => {
  if (code !== 0) {
    say(
      `ratefile: compiling failed after ${seconds(started)} (tsc ${signal ?? `exit ${code}`}); the next start compiles again.`,
    );
    process.exit(code || 1);
  }
  writeFileSync(stampPath, `${JSON.stringify({ inputs, dist: distDigest() })}\n`);
  say(`ratefile: compiled in ${seconds(started)}.`);
});
