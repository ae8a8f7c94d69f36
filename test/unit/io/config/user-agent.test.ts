// `userAgent:` (issue 45, item 22): what every request of ratefile says it is, `ratefile/<version>` unless the config
// says otherwise; the watch from outside says the same, as a monitor-like check, unless `watch.userAgent` is set.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/io/config/load.js';
import { defaultUserAgent } from '../../../../src/base/requests.js';
import { projectsPerTest, sampleConfig } from '../../../support/project.js';

const project = projectsPerTest();
const watch = 'watch:\n  exports:\n    parserfile.xml: https://rates.example.com/parserfile.xml\n';

async function loaded(extra: string) {
  const made = await project({ 'ratefile.config.yaml': `${sampleConfig}${extra}` });
  return loadConfig(made.configPath);
}

describe('userAgent', () => {
  it('is ratefile/<version> by default, for the watch too (as a monitor-like check)', async () => {
    const config = await loaded(watch);
    expect(config.userAgent).toMatch(/^ratefile\/\d+\.\d+\.\d+/);
    expect(config.userAgent).toBe(defaultUserAgent());
    expect(config.watch?.userAgent).toBe(
      `${defaultUserAgent()} (a monitor-like check of an exchange-rates export file)`,
    );
  });

  it("is the config's when it names one, and the watch's own wins for the watch", async () => {
    const config = await loaded(`userAgent: "ExchangerBot/2.0 (+https://exchanger.example/)"\n${watch}`);
    expect(config.userAgent).toBe('ExchangerBot/2.0 (+https://exchanger.example/)');
    expect(config.watch?.userAgent).toBe(
      'ExchangerBot/2.0 (+https://exchanger.example/) (a monitor-like check of an exchange-rates export file)',
    );
    const own = await loaded(
      `userAgent: ExchangerBot/2.0\n${watch}  userAgent: "Mozilla/5.0 (compatible; BestChangeBot/1.0)"\n`,
    );
    expect(own.watch?.userAgent).toBe('Mozilla/5.0 (compatible; BestChangeBot/1.0)');
  });

  it('refuses one a header cannot carry', async () => {
    const refused = await loaded('userAgent: "Bot\\r\\nX-Evil: 1"\n').catch((error: unknown) => error);
    expect(refused).toMatchObject({
      details: [expect.stringMatching(/^userAgent: expected a user agent of printable ASCII/)],
    });
  });
});
