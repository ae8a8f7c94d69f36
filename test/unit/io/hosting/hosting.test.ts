// The `publish.s3` block: defaults, normalization, the problems it reports, and credential redaction in upload errors.
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/io/config/load.js';
import { configJsonSchema } from '../../../../src/io/config/schema.js';
import { isRatefileError } from '../../../../src/base/errors.js';
import { describeUploadError } from '../../../../src/io/hosting/s3-report.js';
import { makeProject, sampleConfig, type Project } from '../../../support/project.js';

const projects: Project[] = [];
afterEach(async () => {
  await Promise.all(projects.splice(0).map((project) => project.remove()));
});

async function load(publish: string) {
  const project = await makeProject({ 'ratefile.config.yaml': `${sampleConfig}${publish}` });
  projects.push(project);
  return loadConfig(project.configPath);
}

async function problems(publish: string): Promise<readonly string[]> {
  try {
    await load(publish);
  } catch (error) {
    if (isRatefileError(error, 'E_CONFIG')) return error.details;
    throw error;
  }
  throw new Error('expected the config to be refused');
}

describe('publish.s3 in the config', () => {
  it('is absent unless configured', async () => {
    expect((await load('')).publish).toEqual({});
  });

  it('takes defaults: bucket root, no-cache, virtual-host addressing, region and endpoint from the SDK', async () => {
    expect((await load('publish:\n  s3: { bucket: rates-example }\n')).publish).toEqual({
      s3: { bucket: 'rates-example', prefix: '', forcePathStyle: false, cacheControl: 'no-cache' },
    });
  });

  it.each([
    ['rates', 'rates/'],
    ['rates/', 'rates/'],
    ['a/b', 'a/b/'],
  ])('prefix %s names the folder %s', async (prefix, expected) => {
    expect((await load(`publish:\n  s3: { bucket: rates, prefix: "${prefix}" }\n`)).publish.s3?.prefix).toBe(expected);
  });

  it('keeps an S3-compatible store’s endpoint, region, path style and cache header', async () => {
    const config = await load(
      'publish:\n  s3:\n    bucket: rates\n    region: auto\n    endpoint: "https://storage.example:9000"\n    forcePathStyle: true\n    cacheControl: "public, max-age=10"\n',
    );
    expect(config.publish.s3).toEqual({
      bucket: 'rates',
      prefix: '',
      region: 'auto',
      endpoint: 'https://storage.example:9000',
      forcePathStyle: true,
      cacheControl: 'public, max-age=10',
    });
  });

  it('reports every problem with its path and line', async () => {
    const lines = await problems(
      'publish:\n  s3:\n    bucket: Rates_Bucket!\n    prefix: "/rates/../x"\n    endpoint: "ftp://storage.example"\n    forcePathStyle: "yes"\n    cacheControll: no-cache\n',
    );
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^publish\.s3\.bucket: expected a bucket name like "rates-example" .*, got "Rates_Bucket!" \(line \d+\)$/,
        ),
        expect.stringMatching(
          /^publish\.s3\.prefix: expected a key prefix like "rates\/" .*, got "\/rates\/\.\.\/x" \(line \d+\)$/,
        ),
        expect.stringMatching(
          /^publish\.s3\.endpoint: expected an http\(s\) URL like "https:\/\/storage\.example", got "ftp:\/\/storage\.example" \(line \d+\)$/,
        ),
        expect.stringMatching(/^publish\.s3\.forcePathStyle: expected true or false, got "yes" \(line \d+\)$/),
        expect.stringMatching(
          /^publish\.s3\.cacheControll: unknown key \(did you mean "cacheControl"\?\) \(line \d+\)$/,
        ),
      ]),
    );
    expect(lines).toHaveLength(5);
  });

  it('requires a bucket', async () => {
    expect(await problems('publish:\n  s3: { prefix: rates }\n')).toEqual([
      expect.stringMatching(/^publish\.s3\.bucket: required/),
    ]);
  });

  it('is in the JSON Schema for editors, with the credential keys marked as not allowed', () => {
    const schema = configJsonSchema() as {
      properties: { publish: { properties: { s3: { properties: Record<string, { not?: unknown }> } } } };
    };
    const s3 = schema.properties.publish.properties.s3.properties;
    expect(Object.keys(s3)).toEqual(
      expect.arrayContaining(['bucket', 'prefix', 'region', 'endpoint', 'forcePathStyle', 'cacheControl']),
    );
    expect(s3.secretAccessKey?.not).toEqual({});
  });
});

describe('describeUploadError', () => {
  it('names the error and HTTP status and takes out credentials from the environment and access key ids', () => {
    const error = Object.assign(new Error('denied for AKIAABCDEFGHIJKLMNOP using s3cr3t-value-here'), {
      name: 'AccessDenied',
      $metadata: { httpStatusCode: 403 },
    });
    expect(describeUploadError(error, { AWS_SECRET_ACCESS_KEY: 's3cr3t-value-here' })).toBe(
      'AccessDenied: denied for [redacted] using [redacted] (HTTP 403)',
    );
  });

  it('says a timeout is one', () => {
    expect(describeUploadError(Object.assign(new Error('Request aborted'), { name: 'AbortError' }), {})).toBe(
      'AbortError: no answer within 20 s',
    );
  });

  it("names the store's host and port when no answer came, once", () => {
    const timeout = Object.assign(new Error('Request aborted'), { name: 'AbortError' });
    expect(describeUploadError(timeout, {}, 20_000, 's3.example.net:443')).toBe(
      'AbortError: no answer within 20 s (s3.example.net:443)',
    );
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9000'), { code: 'ECONNREFUSED' });
    expect(describeUploadError(refused, {}, 20_000, '127.0.0.1:9000')).toBe('connect ECONNREFUSED 127.0.0.1:9000');
    const answered = Object.assign(new Error('denied'), { name: 'AccessDenied', $metadata: { httpStatusCode: 403 } });
    expect(describeUploadError(answered, {}, 20_000, 's3.example.net:443')).toBe('AccessDenied: denied (HTTP 403)');
  });
});
