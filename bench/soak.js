// Soak: `ratefile start` on a generated exchanger rebuilt every second for M minutes, its quotes file moved every
// second (so every build prices and writes new rates, and the dashboard's history records every direction), and
// the service's RSS sampled every 5 s. Reports RSS after the first build, at a sixth of the run (5 minutes of 30)
// and at the end, and how many builds the dashboard's history holds then.
// Usage: node bench/soak.js [DIRECTIONS=3000] [MINUTES=30]  → prints one JSON line.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { movedQuotes, startEverySecond } from './every-second.js';

const [count = 3000, minutes = 30] = process.argv.slice(2).map(Number);
const { directions, quotesPath, baseQuotes, child, base, until, stop } = await startEverySecond('soak', count, 50);

/** The child's resident set in MB: /proc on Linux, `ps` elsewhere. */
function rssMb() {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1];
    if (kb) return Math.round(Number(kb) / 1024);
  } catch {}
  return Math.round(Number(execFileSync('ps', ['-o', 'rss=', '-p', String(child.pid)], { encoding: 'utf8' })) / 1024);
}

try {
  await until(async () => (await fetch(new URL('parserfile.xml', base), { method: 'HEAD' })).ok, 60_000, 'a build');
  const started = Date.now();
  const firstRssMb = rssMb();
  const referenceMinutes = Number((minutes / 6).toFixed(2));
  const samples = [];
  let move = 0;
  let nextSample = started;
  while (Date.now() - started < minutes * 60_000) {
    // Quotes moved every second, never twice to the same prices in a row.
    move += 1;
    const factor = 1 + ((move % 2000) - 1000) / 100_000;
    await writeFile(quotesPath, JSON.stringify({ quotes: movedQuotes(baseQuotes, factor) }));
    if (Date.now() >= nextSample) {
      samples.push({ minutes: (Date.now() - started) / 60_000, rssMb: rssMb() });
      nextSample += 5000;
    }
    await sleep(1000);
  }
  const view = await (await fetch(new URL('dashboard.json', base))).json();
  const reference = samples.find((sample) => sample.minutes >= referenceMinutes) ?? samples[0];
  const metrics = await (await fetch(new URL('metrics', base))).text();
  const builds = Number(/^ratefile_builds_total (\d+)/m.exec(metrics)?.[1] ?? Number.NaN);
  console.log(
    JSON.stringify({
      directions,
      minutes,
      builds,
      firstRssMb,
      referenceMinutes,
      referenceRssMb: reference.rssMb,
      endRssMb: rssMb(),
      maxRssMb: Math.max(...samples.map((sample) => sample.rssMb)),
      historyBuilds: view.builds.length,
      samples: samples.map((sample) => [Number(sample.minutes.toFixed(2)), sample.rssMb]),
    }),
  );
} finally {
  await stop();
}
