// Issue 23, defect 5: health counts directions, not exports. A direction whose limits cross only at the 0.5% markup
// of three exports is published by parserfile.xml: it is reported as left out of those three, never as three
// withheld directions; a direction left out of every export is one withheld direction, not a published one.
import { utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectsPerTest, sampleConfig, type Project } from '../../support/project.js';
import { runRatefile } from '../../support/run-cli.js';
import { servicesPerTest } from '../../support/service.js';

const project = projectsPerTest();
const startService = servicesPerTest();

/** Seven directions; BTC>SBERRUB's minimum (500000 RUB) is above its maximum (0.0569 BTC) at any 0.5% markup. */
const sevenDirections = `${sampleConfig
  .replace('min: 0.001, max: "500000 RUB"', 'min: "500000 RUB", max: 0.0569')
  .replace(
    '  CASHRUB: { precision: 0, reserve: "3000000" }\n',
    '  CASHRUB: { precision: 0, reserve: "3000000" }\n  TCSBRUB: { reserve: "5000000" }\n',
  )}  - { from: SBERRUB, to: TCSBRUB }
  - { from: TCSBRUB, to: SBERRUB }
  - { from: USDTTRC20, to: SBERRUB }
`;

/** Three exports with a 0.5% markup besides parserfile.xml (or four, when parserfile.xml has one too). */
function templates(parserMarkup: boolean): Record<string, string> {
  return {
    'templates/parserfile.yaml': `description: every direction\n${parserMarkup ? 'markup: 0.5%\n' : ''}`,
    'templates/reffile.yaml': 'include: { tags: [ref] }\nmarkup: 0.5%\naliases: { USDTTRC20: USDTTRC }\n',
    'templates/affiliatefile.yaml': 'markup: 0.5%\nexclude: { tags: [cash] }\n',
    'templates/partnerfile.yaml': 'markup: 0.5%\n',
  };
}

interface Seen {
  healthz: {
    code: number;
    body: { level: string; reasons: string[]; published: string[]; heldBack: { direction: string }[] };
  };
  status: { code: number; stdout: string };
  counts: { published: number; withheld: number };
  metrics: string;
  parserfile: string;
}

async function look(made: Project): Promise<Seen> {
  let now = new Date();
  await utimes(join(made.dir, 'quotes.json'), now, now); // quotes without a time are as old as their file
  const service = await startService(made, { now: () => now });
  now = new Date(now.getTime() + 1000);
  const response = await fetch(new URL('healthz', service.base));
  const dashboard = (await (await fetch(new URL('dashboard.json', service.base))).json()) as {
    head: { counts: Seen['counts'] };
  };
  return {
    healthz: { code: response.status, body: (await response.json()) as Seen['healthz']['body'] },
    status: await runRatefile(['status'], made.dir, { now: () => now }),
    counts: dashboard.head.counts,
    metrics: await (await fetch(new URL('metrics', service.base))).text(),
    parserfile: await (await fetch(new URL('parserfile.xml', service.base))).text(),
  };
}

describe('health counts directions, each once', () => {
  it('a direction left out of the three markup exports only is published, and reported as left out of them', async () => {
    const seen = await look(await project({ 'ratefile.config.yaml': sevenDirections, ...templates(false) }));
    expect(seen.parserfile).toMatch(/<from>BTC<\/from>\s*<to>SBERRUB<\/to>/);

    const reason =
      '1 direction left out of some exports for a fault: BTC → SBERRUB (affiliatefile.xml, partnerfile.xml, reffile.xml)';
    expect(seen.healthz.code).toBe(200);
    expect(seen.healthz.body).toMatchObject({ level: 'degraded', reasons: [reason] });
    expect(seen.healthz.body.published).toHaveLength(7);
    expect(seen.healthz.body.heldBack).toEqual([]);

    expect(seen.status.code).toBe(1);
    const lines = seen.status.stdout.split('\n');
    expect(lines[0]).toBe(`DEGRADED: ${reason}`);
    expect(lines).toContain('published: 7 directions');
    expect(lines).toContain('left out of some exports: 1');
    expect(lines).toContain(
      '  BTC → SBERRUB: left out of affiliatefile.xml, partnerfile.xml, reffile.xml: minimum 0.05709845 BTC is above the maximum 0.0569 BTC [limits]',
    );
    expect(lines).toContain('held back: 0');
    // The headline, its own line and the list of what one source alone prices.
    expect(seen.status.stdout.match(/BTC → SBERRUB/g)).toHaveLength(3);
    expect(lines.filter((line) => line.includes('BTC → SBERRUB') && line.includes('NO REFERENCE'))).toHaveLength(1);

    expect(seen.counts).toMatchObject({ published: 7, withheld: 0 });
    expect(seen.metrics).toMatch(/^ratefile_directions_published 7$/m);
    expect(seen.metrics).not.toMatch(/^ratefile_directions_withheld\{reason="limits"\}/m);
  });

  it('a direction left out of every export is one withheld direction, not a published one', async () => {
    const seen = await look(await project({ 'ratefile.config.yaml': sevenDirections, ...templates(true) }));
    expect(seen.parserfile).not.toMatch(/<from>BTC<\/from>\s*<to>SBERRUB<\/to>/);

    const reason = '1 of 7 directions withheld for a fault: BTC → SBERRUB';
    expect(seen.healthz.code).toBe(200);
    expect(seen.healthz.body).toMatchObject({ level: 'degraded', reasons: [reason] });
    expect(seen.healthz.body.published).toHaveLength(6);
    expect(seen.healthz.body.heldBack.map((h) => h.direction)).toEqual(['BTC>SBERRUB']);

    const lines = seen.status.stdout.split('\n');
    expect(lines[0]).toBe(`DEGRADED: ${reason}`);
    expect(lines).toContain('published: 6 directions');
    expect(lines).toContain('held back: 1');
    expect(lines).toContain(
      '  BTC → SBERRUB: left out of affiliatefile.xml, parserfile.xml, partnerfile.xml, reffile.xml: minimum 0.05709845 BTC is above the maximum 0.0569 BTC [limits]',
    );
    expect(lines.some((line) => line.startsWith('left out of some exports'))).toBe(false);

    expect(seen.counts).toMatchObject({ published: 6, withheld: 1 });
    expect(seen.metrics).toMatch(/^ratefile_directions_published 6$/m);
    expect(seen.metrics).toMatch(/^ratefile_directions_withheld\{reason="limits"\} 1$/m);
  });
});
