// `/quote` on a running service (issue 47, item 3): on loopback it answers the rate the published file has for that
// amount, signed with `archive.key` (it verifies with the public key, and `ratefile quote` says the same); a direction
// not published, an amount outside the limits, a bad request and a service without a key are refused with their
// status, never a stale rate; on an address others reach it is a 404 like any unknown path.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { newSigningKey } from '../../../src/io/archive/key.js';
import { verifyQuote } from '../../../src/io/archive/quote.js';
import { projectsPerTest, sampleConfig } from '../../support/project.js';
import { runRatefile } from '../../support/run-cli.js';
import { servicesPerTest } from '../../support/service.js';

const project = projectsPerTest();
const start = servicesPerTest();
const keyed = `${sampleConfig}archive: { key: { env: RATEFILE_OPERATOR_KEY } }\n`;

async function publishedItem(dir: string, from: string, to: string) {
  const text = await readFile(join(dir, 'public', 'parserfile.xml'), 'utf8');
  const items = new XMLParser({ parseTagValue: false, isArray: (name) => name === 'item' }).parse(text).rates
    .item as Record<string, string>[];
  return items.find((item) => item.from === from && item.to === to)!;
}

describe('/quote', () => {
  it("answers the published file's rate for the amount, signed, and refuses what it cannot quote", async () => {
    const { pem, publicKey } = newSigningKey();
    const env = { RATEFILE_OPERATOR_KEY: pem };
    const made = await project({ 'ratefile.config.yaml': keyed });
    const service = await start(made, { env });
    const item = await publishedItem(made.dir, 'BTC', 'SBERRUB');
    const response = await fetch(`${service.base}quote?from=BTC&to=SBERRUB&amount=0.01`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const quote = (await response.json()) as Record<string, string>;
    expect(quote).toMatchObject({
      from: 'BTC',
      to: 'SBERRUB',
      amount: '0.01',
      in: item.in,
      out: item.out,
      export: 'parserfile.xml',
    });
    expect(verifyQuote(quote, publicKey, new Date())).toBeUndefined();
    expect(verifyQuote({ ...quote, out: '1' }, publicKey, new Date())).toBe('the signature does not verify');
    // The CLI reads the same archive: the same rate, signed by the same key.
    const cli = await runRatefile(['quote', 'BTC', 'SBERRUB', '0.01'], made.dir, { env, now: () => new Date() });
    expect(cli.code, cli.stderr).toBe(0);
    const printed = JSON.parse(cli.stdout) as Record<string, string>;
    expect(printed).toMatchObject({ in: item.in, out: item.out, key: publicKey });
    expect(verifyQuote(printed, publicKey, new Date())).toBeUndefined();

    const refused = async (query: string, status: number) => {
      const answer = await fetch(`${service.base}quote?${query}`);
      expect(answer.status, query).toBe(status);
      return ((await answer.json()) as { refused: string }).refused;
    };
    expect(await refused('from=BTC&to=CASHRUB&amount=1', 409)).toMatch(/not published in parserfile\.xml now/);
    expect(await refused('from=BTC&to=SBERRUB&amount=100', 409)).toBe(
      `BTC → SBERRUB: 100 is above the maximum ${item.maxamount}`,
    );
    expect(await refused('from=BTC&to=SBERRUB&amount=abc', 400)).toMatch(/^amount: expected a positive decimal amount/);
  });

  it('is 503 without archive.key: nothing is signed', async () => {
    const service = await start(await project());
    expect((await fetch(`${service.base}quote?from=BTC&to=SBERRUB&amount=0.01`)).status).toBe(503);
  });

  it('is 404 on an address others reach, like any unknown path', async () => {
    const env = { RATEFILE_OPERATOR_KEY: newSigningKey().pem };
    const service = await start(await project({ 'ratefile.config.yaml': keyed }), { env, host: '0.0.0.0' });
    const answer = await fetch(`${service.base}quote?from=BTC&to=SBERRUB&amount=0.01`);
    expect(answer.status).toBe(404);
    expect(await answer.text()).toBe('Not Found\n');
  });
});
