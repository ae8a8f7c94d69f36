// The preview page lists each competing direction's place, what set its rate and why; nothing when none competes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, type BuildReport } from '../../src/build.js';
import { loadConfig } from '../../src/config/load.js';
import type { ExportTemplate } from '../../src/model.js';
import { renderPreview } from '../../src/preview/page.js';
import { makeProject, type Project } from '../support/project.js';
import { fixedNow } from '../support/run-cli.js';

let made: Project;
let report: BuildReport;
let exports: ExportTemplate[];
beforeAll(async () => {
  made = await makeProject();
  const config = await loadConfig(made.configPath, made.dir);
  exports = config.exports;
  report = (await build(config, { now: fixedNow })).report;
});
afterAll(() => made.remove());

describe('the preview page and competing directions', () => {
  it('a table of places, with the reason of a clamp or a fallback, escaped', () => {
    const [first, second, ...rest] = report.priced;
    const priced = [
      { ...first!, compete: { target: '1-3', place: 3, competitors: 12, basis: 'place' as const, feedAgeSeconds: 4 } },
      { ...second!, compete: { target: '2', place: 0, competitors: 0, basis: 'fallback' as const, reason: 'feed bc has no data: <html>' } },
      ...rest,
    ];
    const html = renderPreview({ latest: { report: { ...report, priced }, exports }, now: fixedNow() });
    expect(html).toContain('<h2 id="competing">Competing on BestChange</h2>');
    expect(html).toMatch(/<td[^>]*>BTC → SBERRUB<\/td><td[^>]*>1-3<\/td><td[^>]*>3<\/td><td[^>]*>12<\/td><td[^>]*>holds the place<\/td><td[^>]*><\/td><td[^>]*>4 s<\/td>/);
    expect(html).toMatch(/<td[^>]*>BTC → USDTTRC20<\/td><td[^>]*>2<\/td><td[^>]*>–<\/td><td[^>]*>0<\/td><td[^>]*>NORMAL MARGIN: field not trusted<\/td><td[^>]*>feed bc has no data: &lt;html&gt;<\/td>/);
  });

  it('no section when nothing competes', () => {
    expect(renderPreview({ latest: { report, exports }, now: fixedNow() })).not.toContain('Competing on BestChange');
  });
});
