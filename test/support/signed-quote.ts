// A real signed quote from a real build, and docs/exports.md's verify snippets as the page shows them: shared by the
// quote's unit test (the JavaScript snippet, in Node) and test/php/ (the PHP snippet, in a real PHP).
import { readFileSync } from 'node:fs';
import { build } from '../../src/io/build/build.js';
import { loadConfig } from '../../src/io/config/load.js';
import { newSigningKey, signingKeyOf } from '../../src/io/archive/key.js';
import { quoteMessage, quoteOf, type QuoteFields } from '../../src/pure/archive/quote.js';
import { sampleConfig, type projectsPerTest } from './project.js';

export const quoteNow = new Date('2026-11-21T12:00:30Z');

export const tieredConfig = `${sampleConfig}  - { from: SBERRUB, to: BTC, min: 10000, margin: 2%, tiers: [{ from: "200000 RUB", margin: 1.5% }, { from: 1000000, margin: 1% }] }
  - { from: USDTTRC20, to: SBERRUB, max: 20000, tiers: [{ from: 5000, margin: 1% }, { from: 10000, margin: 3% }] }
`;

/** docs/exports.md's snippet after its marker, as the page shows it. */
export function docsSnippet(marker: string, language: string): string {
  const page = readFileSync(new URL('../../docs/exports.md', import.meta.url), 'utf8');
  const at = page.indexOf(`<!-- ${marker} -->`);
  const match = new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\\n\`\`\``).exec(page.slice(at));
  if (at < 0 || !match) throw new Error(`no ${marker} snippet in docs/exports.md`);
  return match[1]!;
}

/** The published files of the tiered sample config (an EREF 1.1 export beside the classic ones), by file name. */
export async function publishedFiles(project: ReturnType<typeof projectsPerTest>): Promise<Map<string, string>> {
  const made = await project({
    'ratefile.config.yaml': tieredConfig,
    'templates/rates11.yaml': 'format: eref-1.1\nfile: rates-1.1.xml\n',
  });
  const config = await loadConfig(made.configPath);
  const { files } = await build(config, { now: () => quoteNow });
  return new Map(files.map((file) => [file.file, file.bytes.toString('utf8')]));
}

/** Where a quote's rate comes from: one published file, as the archive's newest record names it. */
export const quoteSource = (file: string, text: string) => ({
  file,
  text,
  sha256: 'ab'.repeat(32),
  build: 'b',
  record: 1,
  published: quoteNow.toISOString(),
});

export interface SignedQuote {
  /** The quote as an engine parses it from the JSON answer. */
  quote: Record<string, string>;
  publicKey: string;
}

/** A quote for 0.01 BTC → SBERRUB signed by a new operator key, as `/quote` answers it. */
export async function signedQuote(project: ReturnType<typeof projectsPerTest>): Promise<SignedQuote> {
  const files = await publishedFiles(project);
  const { pem, publicKey } = newSigningKey();
  const key = signingKeyOf(pem, 'a test key');
  const answer = quoteOf(
    { from: 'BTC', to: 'SBERRUB', amount: '0.01' },
    quoteSource('parserfile.xml', files.get('parserfile.xml')!),
    quoteNow,
    900_000,
    key.publicKey,
  );
  if (!('fields' in answer)) throw new Error(answer.refused);
  const signed: QuoteFields & { signature: string } = {
    ...answer.fields,
    signature: key.sign(quoteMessage({ ...answer.fields })),
  };
  return { quote: JSON.parse(JSON.stringify(signed)) as Record<string, string>, publicKey };
}

/** What a verifier must answer: the quote itself, forged ones, another key, and the quote once expired. */
export function verifyCases({ quote, publicKey }: SignedQuote) {
  const expiredAt = new Date(Date.parse(quote.validUntil!) + 1000);
  return [
    { name: 'the quote', quote, publicKey, now: quoteNow, expected: 'ok' },
    { name: 'a forged rate', quote: { ...quote, out: '9999999' }, publicKey, now: quoteNow, expected: 'bad signature' },
    { name: 'an added field', quote: { ...quote, extra: 'x' }, publicKey, now: quoteNow, expected: 'bad signature' },
    {
      name: 'a signature cut',
      quote: { ...quote, signature: quote.signature!.slice(4) },
      publicKey,
      now: quoteNow,
      expected: 'bad signature',
    },
    { name: 'no signature', quote: { ...quote, signature: '' }, publicKey, now: quoteNow, expected: 'bad signature' },
    { name: 'another key', quote, publicKey: newSigningKey().publicKey, now: quoteNow, expected: 'bad signature' },
    { name: 'expired', quote, publicKey, now: expiredAt, expected: 'expired' },
  ] as const;
}
