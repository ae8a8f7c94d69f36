// `switchesFrom:` in the config: on a direction or in `defaults:`, naming a reserve source; a direction without hours of
// its own carries the config's manualHours for the back office's `manual` label (src/pure/reserves/switches.ts).
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/io/config/load.js';
import { projectsPerTest, sampleConfig } from '../../../support/project.js';
import { runRatefile } from '../../../support/run-cli.js';

const project = projectsPerTest();
const config = sampleConfig
  .replace('currencies:\n', 'reserves:\n  office: { type: file, path: switches.json }\ncurrencies:\n')
  .replace('defaults:\n', 'defaults:\n  switchesFrom: office\n')
  .replace('params: [manual], fromfee: "1%"', 'params: [manual], fromfee: "1%", hours: "Mon-Fri 10:00-18:00 UTC"')
  .concat('manualHours: "Mon-Sun 09:00-21:00 UTC"\n');

describe('switchesFrom in the config', () => {
  it("is every direction's from defaults; manualHours go with those without hours of their own", async () => {
    const made = await project({ 'ratefile.config.yaml': config });
    const loaded = await loadConfig(made.configPath);
    const byId = new Map(loaded.directions.map((d) => [d.id, d]));
    expect([...byId.values()].every((d) => d.switchesFrom === 'office')).toBe(true);
    expect(byId.get('BTC>SBERRUB')!.manualHours).toHaveLength(1);
    expect(byId.get('BTC>SBERRUB')!.hours).toBeUndefined();
    expect(byId.get('SBERRUB>USDTTRC20')!.manualHours).toBeUndefined();
    expect(byId.get('SBERRUB>USDTTRC20')!.hours).toHaveLength(1);
  });

  it('names a reserve source, in defaults too', async () => {
    const made = await project({
      'ratefile.config.yaml': config.replace('switchesFrom: office', 'switchesFrom: offise'),
    });
    const checked = await runRatefile(['validate'], made.dir);
    expect(checked.code).toBe(2);
    expect(checked.stderr).toContain(
      'defaults.switchesFrom: expected a key of reserves (did you mean "office"?), got "offise"',
    );
  });
});
