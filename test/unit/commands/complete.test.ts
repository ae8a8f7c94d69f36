// `ratefile __complete WORD…` in-process: the candidates one a line, exit 3 for file names, and silence (exit 0,
// nothing on stderr) on a config that is missing or broken. The shells themselves run it in test/shells/.
import { describe, expect, it } from 'vitest';
import { otherConfig, projectConfig } from '../../shells/harness.js';
import { projectsPerTest } from '../../support/project.js';
import { runRatefile } from '../../support/run-cli.js';

const project = projectsPerTest();

async function complete(words: string[], env: Record<string, string> = {}) {
  const { dir } = await project({ 'ratefile.config.yaml': projectConfig, 'other.yaml': otherConfig, 'bad.yaml': '[' });
  const result = await runRatefile(['__complete', ...words], dir, { env });
  return { ...result, candidates: result.stdout.split('\n').filter(Boolean) };
}

describe('ratefile __complete', () => {
  it.each([
    [
      ['explain', ''],
      ['BTC', 'ETH', 'USDTTRC20'],
    ],
    [
      ['explain', 'BTC', ''],
      ['SBERRUB', 'USDTTRC20', 'CASHRUB'],
    ],
    [['explain', 'btc', 's'], []],
    [['explain', 'BTC', 's'], ['SBERRUB']],
    [['quote', 'ETH', ''], ['SBERRUB']],
    [['at', 'now', 'USDTTRC20', ''], ['BTC']],
    [
      ['status', '--rate', 'BTC', ''],
      ['SBERRUB', 'USDTTRC20', 'CASHRUB'],
    ],
    [
      ['explain', 'BTC', 'CASHRUB', '--city', ''],
      ['MSK', 'SPB'],
    ],
    [['--quiet', 'pause', '--config', 'other.yaml', ''], ['LTC']],
    [['pause', '--config=other.yaml', ''], ['LTC']],
    [['pause', '--config=other.yaml', 'LTC', ''], ['TRX']],
    // A value in the option's word: the bare value after `=` is offered, as each shell expects.
    [['--log-format=j'], ['json']],
    [
      ['build', '--log-format='],
      ['text', 'json'],
    ],
    [['explain', 'BTC', 'CASHRUB', '--city=S'], ['SPB']],
    [['at', 'now', '--export=p'], ['parserfile.xml']],
    [['status', '--rate=BTC', 'S'], ['SBERRUB']],
    [['check', '--monitor=moneys'], ['moneyswap']],
    [['build', '--dry-run='], []],
    [['build', '--no-such-option='], []],
    [
      ['maintenance', ''],
      ['on', 'off'],
    ],
    [
      ['archive', ''],
      ['verify', 'key', 'keygen', 'help'],
    ],
    [['help', 'ex'], ['explain']],
    [
      ['archive', 'help', ''],
      ['verify', 'key', 'keygen'],
    ],
    [
      ['probe', '--format', ''],
      ['classic', 'eref', 'json'],
    ],
    [
      ['at', 'now', '--export', ''],
      ['affiliatefile.xml', 'parserfile.xml', 'reffile.xml'],
    ],
    [['explain', 'BTC', 'SBERRUB', '--export', 'r'], ['reffile.xml']],
    [['explain', 'BTC', 'SBERRUB', ''], []],
    [['explain', '-'], []],
    [['pause', 'BTC', 'SBERRUB', '--until', ''], []],
  ])('%j offers %j', async (words, offered) => {
    const result = await complete(words);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.candidates).toEqual(offered);
  });

  it("after --export, a private template's file is never offered: its name is a secret", async () => {
    // The sample project (a whole config), with a private template beside its three.
    const { dir } = await project({
      'templates/premium.yaml': 'private: true\nfile: premium-Qx7Rt2Lm9Vb4Nw8K.xml\n',
    });
    const result = await runRatefile(['__complete', 'at', 'now', '--export', ''], dir);
    expect([result.code, result.stderr]).toEqual([0, '']);
    expect(result.stdout.split('\n').filter(Boolean)).toEqual(['affiliatefile.xml', 'parserfile.xml', 'reffile.xml']);
    // The template is there and valid: the build writes it.
    const validated = await runRatefile(['validate'], dir);
    expect([validated.code, validated.stderr]).toEqual([0, '']);
  });

  it('a config named by RATEFILE_CONFIG is the default', async () => {
    expect((await complete(['explain', ''], { RATEFILE_CONFIG: 'other.yaml' })).candidates).toEqual(['LTC']);
  });

  it.each([
    [['build', '--config', '']],
    [['build', '--config=']],
    [['check', 'public/']],
    [['init', '']],
    [['check', '--codes-from', '']],
  ])('%j asks for file names: exit 3, nothing printed', async (words) => {
    const result = await complete(words);
    expect([result.code, result.stdout, result.stderr]).toEqual([3, '', '']);
  });

  it.each([['bad.yaml'], ['missing.yaml'], ['.']])(
    'a config that cannot be read (%s) offers nothing, silently',
    async (path) => {
      const result = await complete(['explain', '--config', path, '']);
      expect([result.code, result.stdout, result.stderr]).toEqual([0, '', '']);
    },
  );
});
