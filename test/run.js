// `npm test`: the checks CI runs, timed. The four static checks run side by side (each prints its output when it
// ends, so lines never interleave), then vitest's three projects (unit, heavy, integration); the last line says how
// long each step took.
// Extra arguments go to vitest (`npm test -- test/unit/base`).
import { spawn } from 'node:child_process';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const checks = [
  ['typecheck', [npm, 'run', '--silent', 'typecheck']],
  ['lint', [npm, 'run', '--silent', 'lint']],
  ['lint:deps', [npm, 'run', '--silent', 'lint:deps']],
  ['build', [npm, 'run', '--silent', 'build']],
];

/** Run one step; its output is kept and printed when it ends unless `live`. */
function step(name, [command, ...args], live = false) {
  const started = performance.now();
  return new Promise((done) => {
    const child = spawn(command, args, { stdio: live ? 'inherit' : ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout?.on('data', (chunk) => (output += chunk));
    child.stderr?.on('data', (chunk) => (output += chunk));
    child.on('close', (code, signal) => {
      const seconds = (performance.now() - started) / 1000;
      if (!live)
        process.stdout.write(`── ${name} (${seconds.toFixed(0)} s): ${code === 0 ? 'ok' : 'FAILED'}\n${output}`);
      done({ name, ok: code === 0 && !signal, seconds });
    });
  });
}

const started = performance.now();
const results = await Promise.all(checks.map(([name, command]) => step(name, command)));
if (results.every((result) => result.ok)) {
  results.push(await step('vitest', ['npx', 'vitest', 'run', ...process.argv.slice(2)], true));
}
const total = ((performance.now() - started) / 1000).toFixed(0);
const failed = results.filter((result) => !result.ok).map((result) => result.name);
const steps = results.map((result) => `${result.name} ${result.seconds.toFixed(0)} s`).join(', ');
console.log(`\nnpm test: ${failed.length === 0 ? 'passed' : `FAILED (${failed.join(', ')})`} in ${total} s — ${steps}`);
process.exitCode = failed.length === 0 ? 0 : 1;
