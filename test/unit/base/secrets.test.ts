// src/base/secrets.ts: a registered secret is gone in every form it travels in; credential-like values in a third party's
// answer are gone without being known; redaction comes before a cut; ordinary messages are left alone.
import { describe, expect, it } from 'vitest';
import { quoteValue, RatefileError } from '../../../src/base/errors.js';
import { createLogger } from '../../../src/base/log.js';
import { maskedUrl } from '../../../src/io/reserves/sql-target.js';
import {
  redact,
  redactSecrets,
  redactValue,
  registerConfigSecrets,
  registerEnvSecrets,
  registerSecret,
} from '../../../src/base/secrets.js';
import { snippet } from '../../../src/io/sources/http.js';
import { shown } from '../../../src/pure/sources/values.js';

const token = 'tok_9Hq2Lm7Zx4Pv8Nb3Tc6Rk1Wd5';
registerSecret(token);

describe('a registered secret', () => {
  const base64 = (text: string) => Buffer.from(text).toString('base64');
  it.each([
    ['as is', `denied for ${token}.`],
    ['URL-encoded', `GET /x?k=${encodeURIComponent(`${token}/+`)}`],
    ['JSON-escaped', JSON.stringify({ echo: token })],
    ['base64', `digest ${base64(token)}`],
    ['base64url', `digest ${Buffer.from(token).toString('base64url')}`],
    ['base64 inside a longer value (Basic auth of user:secret)', `Authorization: Basic ${base64(`user:${token}`)}`],
    ['base64 at the other alignment', `cookie ${base64(`abc:${token}:cd`)}`],
  ])('is redacted %s', (_form, text) => {
    const out = redactSecrets(text);
    expect(out).toContain('***');
    expect(out).not.toContain(token.slice(0, 12));
    for (const prefix of [0, 1, 2]) {
      const encoded = base64(`${'x'.repeat(prefix)}${token}`);
      expect(out).not.toContain(encoded.slice(4, 24));
    }
  });

  it('is redacted JSON-escaped too when it holds a quote or a backslash (an echoed JSON document, a JSON log line)', () => {
    const awkward = 'pa"ss\\w0rd-Q7z';
    registerSecret(awkward);
    const echoed = JSON.stringify({ echo: awkward });
    expect(echoed).toContain('pa\\"ss\\\\w0rd');
    const out = redactSecrets(`upstream said ${echoed}`);
    expect(out).toBe('upstream said {"echo":"***"}');
  });

  it('is redacted before a value is cut, so no prefix of it is left (shown cuts at 40, snippet at 60, quoteValue at 200)', () => {
    const long = `${'a'.repeat(30)}${token}`;
    expect(shown(long)).not.toContain(token.slice(0, 6));
    expect(snippet(`${'b'.repeat(50)} ${token}`)).not.toContain(token.slice(0, 6));
    expect(quoteValue(`${'c'.repeat(190)}${token}`)).not.toContain(token.slice(0, 6));
  });

  it('never reaches an error message or its details, nor a log line in either format', () => {
    const error = new RatefileError('E_SOURCE', `failed: ${token}`, { details: [`echo ${token}`] });
    expect(`${error.message} ${error.details.join(' ')}`).not.toContain(token);
    let out = '';
    for (const format of ['text', 'json'] as const)
      createLogger({ write: (line: string) => (out += line) }, { format: () => format }).warn(`echo ${token}`, {
        body: { nested: [token] },
      });
    expect(out).not.toContain(token);
    expect(out.match(/\*\*\*/g)).toHaveLength(3);
  });
});

describe('what looks like a credential in an answer', () => {
  it.each([
    ['Authorization: Bearer abc.def-ghi_jkl', 'Authorization: Bearer ***'],
    ['bearer 0123456789', 'bearer ***'],
    ['Basic dXNlcjpwYXNzd29yZA==', 'Basic ***'],
    ['GET /v1/t?key=s3cr3t&pair=btc', 'GET /v1/t?key=***&pair=btc'],
    ['GET /v1/t?pair=btc&api_key=s3cr3t', 'GET /v1/t?pair=btc&api_key=***'],
    ['access_token=abc; password=hunter2', 'access_token=***; password=***'],
    ['{"apiKey":"k-123","price":"1"}', '{"apiKey":"***","price":"1"}'],
    ['https://alice:hunter2@api.example/x', 'https://alice:***@api.example/x'],
    ['https://ghp_0123456789abcdefghij@github.com/x', 'https://***@github.com/x'],
  ])('%s → %s', (text, expected) => {
    expect(redactSecrets(text)).toBe(expected);
  });

  it.each([
    'gecko: GET /api/v3/simple/price: HTTP 429 Too Many Requests: rate limited (error_code 429)',
    'sources.gecko.keyEnv: expected an environment variable name, got "x y"',
    'expected a URL like postgres://user:password@host:5432/database or mysql://user:password@host:3306/database',
    'reserve of SBERRUB from office: the key "SBERRUB" is not a number',
    'https://exchanger.example/?cur_from=BTC&cur_to=SBERRUB',
  ])('leaves an ordinary text alone: %s', (text) => {
    expect(redactSecrets(text)).toBe(text);
  });

  it('redactValue reaches every string of a status-like value and keeps its shape and keys', () => {
    const value = { sources: [{ name: 'a', lastError: 'Bearer xyz123456', quotes: 2, ok: false }], token: 'n/a' };
    expect(redactValue(value)).toEqual({
      sources: [{ name: 'a', lastError: 'Bearer ***', quotes: 2, ok: false }],
      token: 'n/a',
    });
  });

  it("redact takes a source's own secrets on top, even short ones", () => {
    expect(redact('user pw1 and pw2', 'pw1', undefined, 'pw2')).toBe('user *** and ***');
  });
});

describe('registration from a config and its environment', () => {
  it("registers every variable the config names, credential-named variables, a database URL's password and URL keys", () => {
    const env = {
      MY_HEADER_VALUE: 'hdr-value-0001',
      SMTP_PASSWORD: 'smtp-pass-0002',
      DB_URL: 'postgres://reader:db-pass-0003@db/x',
      OPS_CHAT: 'chat-id-0004',
      OPS_BOT: 'bot-token-0007',
      HOME_DIRECTORY: '/home/not-a-secret',
    };
    registerConfigSecrets(
      {
        reserveSources: [
          { options: { type: 'http', auth: { env: 'MY_HEADER_VALUE' } } },
          { options: { type: 'sql', url: { env: 'DB_URL' } } },
        ],
        sources: [{ options: { type: 'json', url: 'https://venue.example/t?apikey=url-key-0005&pair=btcusdt' } }],
        alerts: { telegram: { chatIdEnv: 'OPS_CHAT' } },
        control: { telegram: { tokenEnv: 'OPS_BOT' } },
      },
      env,
    );
    registerEnvSecrets({ OTHER_TOKEN: 'other-token-0006' });
    const text =
      'hdr-value-0001 smtp-pass-0002 db-pass-0003 chat-id-0004 url-key-0005 other-token-0006 bot-token-0007 btcusdt /home/not-a-secret';
    expect(redactSecrets(text)).toBe('*** *** *** *** *** *** *** btcusdt /home/not-a-secret');
  });

  it('a literal database URL shown in a config error masks a password in its query too', () => {
    expect(maskedUrl(new URL('postgres://r@h/db?sslmode=require&password=p4ss'))).toBe(
      'postgres://r@h/db?sslmode=require&password=***',
    );
  });
});
