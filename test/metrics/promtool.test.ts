// The /metrics text through a real Prometheus parser: `promtool check metrics` must accept it without a
// complaint (lint included). Fails, never skips, when promtool is not installed.
import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../support/ports.js';
import { projectsPerTest, sampleConfig } from '../support/project.js';
import { servicesPerTest } from '../support/service.js';

const project = projectsPerTest();
const start = servicesPerTest();

/** `promtool check metrics` with `text` on stdin: exit code and everything it printed. */
function promtool(text: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.env.PROMTOOL ?? 'promtool', ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', (error) =>
      reject(new Error(`promtool is required (apt-get install prometheus): ${error.message}`)),
    );
    child.on('close', (code) => resolve({ code, output }));
    child.stdin.end(text);
  });
}

describe('promtool check metrics', () => {
  it('accepts /metrics after good builds, a failing source, and requests', async () => {
    const made = await project();
    let now = new Date();
    const service = await start(made, { now: () => now });
    await fetch(new URL('parserfile.xml', service.base));
    await fetch(new URL('missing', service.base));
    await fetch(new URL('healthz', service.base));
    await rm(join(made.dir, 'quotes.json'));
    now = new Date(now.getTime() + 180_000);
    await service.rebuild();
    const text = await (await fetch(new URL('metrics', service.base))).text();
    expect(text).toContain('ratefile_directions_withheld{reason="quote"} 4');
    expect(text).toContain('ratefile_http_requests_total{route="/healthz",status="200"}');
    expect(await promtool(text)).toEqual({ code: 0, output: '' });
  });

  it("accepts the watch from outside's gauges (watch:), the public copy here the service itself", async () => {
    const port = await freePort();
    const made = await project({
      'ratefile.config.yaml': `${sampleConfig}watch:\n  exports:\n    parserfile.xml: http://127.0.0.1:${port}/parserfile.xml\n    reffile.xml: http://127.0.0.1:${port}/nothing.xml\n`,
    });
    const service = await start(made, { port });
    await service.checkOutside();
    const text = await (await fetch(new URL('metrics', service.base))).text();
    expect(text).toContain('ratefile_outside_state{file="parserfile.xml",state="same"} 1');
    expect(text).toContain('ratefile_outside_state{file="reffile.xml",state="error"} 1');
    expect(text).toContain('ratefile_outside_builds_behind{file="parserfile.xml"} 0');
    expect(await promtool(text)).toEqual({ code: 0, output: '' });
  });

  it('is the parser it claims to be: it rejects broken text', async () => {
    const result = await promtool('# TYPE x counter\nx{a="1" 3\n');
    expect(result.code).not.toBe(0);
  });
});
