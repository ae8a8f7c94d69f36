// Fast start (issue 24): wall time of `ratefile --version` and `ratefile --help` against a bare `node -e 0` on the
// same machine (median of N runs each, interleaved so load affects all three alike), and the modules each loads.
// Usage: node bench/startup.js [runs]; prints the table, then one JSON line.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const runs = Number(process.argv[2] ?? 21);
const bin = fileURLToPath(new URL('../bin/ratefile.js', import.meta.url));
const moduleLog = fileURLToPath(new URL('../test/fixtures/module-log.mjs', import.meta.url));
const dist = new URL('../dist/', import.meta.url).href;
const target = 2;

const cases = {
  'node -e 0': ['-e', '0'],
  'ratefile --version': [bin, '--version'],
  'ratefile --help': [bin, '--help'],
};

function wallMs(args) {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const times = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
for (let i = 0; i < runs; i++) for (const [name, args] of Object.entries(cases)) times[name].push(wallMs(args));
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.floor(sorted.length / 2)]);
};

/** Modules one run loads, by the loader hook of test/fixtures/module-log.mjs. */
function modulesOf(args) {
  const dir = mkdtempSync(join(tmpdir(), 'ratefile-startup-'));
  try {
    const log = join(dir, 'modules.txt');
    execFileSync(process.execPath, ['--import', moduleLog, ...args], {
      env: { ...process.env, RATEFILE_MODULE_LOG: log },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const urls = [...new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean))];
    const ours = urls.filter((url) => url.startsWith(dist)).length;
    const packages = urls.filter((url) => url.includes('/node_modules/')).length;
    return { ours, packages, builtins: urls.filter((url) => url.startsWith('node:')).length, total: ours + packages };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const bare = median(times['node -e 0']);
const results = {};
console.log(
  `startup, median of ${runs} runs (load average ${loadavg()
    .map((v) => v.toFixed(2))
    .join(' ')}); modules = dist/ + node_modules files loaded`,
);
console.log('| command | median ms | × node -e 0 | modules (dist + packages) |');
console.log('|---|---|---|---|');
for (const [name, args] of Object.entries(cases)) {
  const ms = median(times[name]);
  const modules = name === 'node -e 0' ? undefined : modulesOf(args);
  results[name] = { medianMs: ms, ratio: Number((ms / bare).toFixed(2)), ...(modules ? { modules } : {}) };
  console.log(
    `| ${name} | ${ms} | ${(ms / bare).toFixed(2)} | ${modules ? `${modules.total} (${modules.ours} + ${modules.packages})` : '—'} |`,
  );
}
for (const name of ['ratefile --version', 'ratefile --help']) {
  const { medianMs, ratio } = results[name];
  console.log(
    `- ${name} within ${target}× node -e 0: ${medianMs} / ${bare} ms = ${ratio} → ${ratio <= target ? 'holds' : 'MISSED'}`,
  );
}
console.log(JSON.stringify({ runs, loadavg: loadavg(), ...results }));
