// Checks a generated 16,000-item export (about 3 MB) with `ratefile check`'s checker (dist/, so build first) and
// prints the median time. Two shapes: ours (the standard form, the fast path) and the shape real files have
// (suffixed limits, labels, cities, 1:0.96-style rates, elements out of order: every item gets the full rules).
// Prints one JSON line last.
import { readFileSync } from 'node:fs';
import { checkExportTraced } from '../dist/pure/check/export.js';

const count = Number(process.argv[2] ?? 16000);
const runs = Number(process.argv[3] ?? 7);

const codes = readFileSync(new URL('../data/currency-codes.tsv', import.meta.url), 'utf8')
  .split('\n')
  .slice(1)
  .filter(Boolean)
  .map((line) => {
    const [code = '', , kind = ''] = line.split('\t');
    return { code, kind };
  });
const cities = ['MSK', 'SPB', 'EKB', 'KZN', 'NSK'];

/** `count` distinct directions (cash ones once per city), deterministic. */
function directions() {
  const list = [];
  for (const from of codes) {
    for (const to of codes) {
      if (from.code === to.code || (from.kind === 'cash' && to.kind === 'cash')) continue;
      const cash = from.kind === 'cash' || to.kind === 'cash';
      for (const city of cash ? cities : [undefined]) {
        list.push({ from: from.code, to: to.code, city });
        if (list.length === count) return list;
      }
    }
  }
  return list;
}

/** A decimal text with `places` digits after the dot, from an integer seed. */
const decimal = (seed, places) =>
  `${Math.floor(seed / 10 ** places)}.${String(seed % 10 ** places).padStart(places, '0')}`;

function render(shape) {
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>', '<rates>'];
  directions().forEach(({ from, to, city }, i) => {
    const rate = decimal(1_000_000 + ((i * 7919) % 90_000_000), 4);
    const below = shape === 'real' && i % 5 === 0;
    const [inValue, outValue] = i % 2 === 0 ? ['1', below ? '0.9612' : rate] : [rate, '1'];
    const amount = decimal(50_000_000 + ((i * 104_729) % 900_000_000), 2);
    const [min, max] = ['0.0005', decimal(300_000 + ((i * 31) % 100_000), 4)];
    const item = ['<item>', `  <from>${from}</from>`, `  <to>${to}</to>`];
    if (shape === 'real') {
      // Element order as many real files have it: amount before the rate.
      item.push(`  <amount>${amount}</amount>`, `  <in>${inValue}</in>`, `  <out>${outValue}</out>`);
      item.push(
        `  <minamount>${min} ${from}</minamount>`,
        `  <maxamount>${max} ${from}</maxamount>`,
        '  <param>manual, verifying</param>',
      );
    } else {
      item.push(`  <in>${inValue}</in>`, `  <out>${outValue}</out>`, `  <amount>${amount}</amount>`);
      item.push(
        `  <minamount>${min}</minamount>`,
        `  <maxamount>${max}</maxamount>`,
        '  <param>manual, verifying</param>',
      );
    }
    if (city) item.push(`  <city>${city}</city>`);
    item.push('</item>');
    lines.push(...item);
  });
  lines.push('</rates>', '');
  return Buffer.from(lines.join('\n'), 'utf8');
}

const results = {};
for (const shape of ['ours', 'real']) {
  const bytes = render(shape);
  const times = [];
  const cpuTimes = [];
  let traced;
  for (let run = 0; run < runs; run++) {
    const started = process.hrtime.bigint();
    const cpu = process.cpuUsage();
    traced = checkExportTraced(bytes, `${shape}.xml`);
    const used = process.cpuUsage(cpu);
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
    // CPU time too: on a busy machine the wall clock also counts other processes' turns.
    cpuTimes.push((used.user + used.system) / 1000);
  }
  const median = (values) => Math.round([...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]);
  const errors = traced.result.findings.filter((f) => f.severity === 'error').length;
  results[shape] = {
    items: traced.result.items,
    megabytes: Number((bytes.length / 2 ** 20).toFixed(2)),
    path: traced.path,
    errors,
    warnings: traced.result.findings.length - errors,
    medianMs: median(times),
    fastestMs: Math.round(Math.min(...times)),
    medianCpuMs: median(cpuTimes),
  };
}
console.log(JSON.stringify(results));
