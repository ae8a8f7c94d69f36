// The `publish` block of the config (where the exports go besides the output folder) and its normalized form.
import { z } from 'zod';
import { describeValue, text } from '../../base/config/fields.js';
import type { PublishTargets, S3Target } from '../../model/config.js';

const credentialsElsewhere =
  'credentials are never read from the config file: use the AWS SDK chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE, an instance role)';
const forbidden = () =>
  z
    .never({ error: credentialsElsewhere })
    .optional()
    .describe('Not allowed here: credentials come from the environment or an AWS profile.');

/** http(s) URL of an S3-compatible store, without user or password in it (credentials never live in the config). */
const endpoint = z
  .string({ error: (issue) => `expected a URL like "https://storage.example", got ${describeValue(issue.input)}` })
  .refine(
    (value) => {
      try {
        const url = new URL(value);
        return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
      } catch {
        return false;
      }
    },
    {
      error: (issue) => `expected an http(s) URL like "https://storage.example", got ${describeValue(issue.input)}`,
      abort: true,
    },
  )
  .refine((value) => new URL(value).username === '' && new URL(value).password === '', { error: credentialsElsewhere });

export const s3Schema = z
  .strictObject({
    bucket: text(
      /^[a-z0-9][a-z0-9._-]{1,61}[a-z0-9]$/,
      'a bucket name like "rates-example" (3 to 63 lower-case letters, digits, dots, hyphens)',
    ).describe('Bucket the exports are uploaded to.'),
    prefix: text(
      /^(?!\/)(?!.*(^|\/)\.{1,2}(\/|$))(?!.*\/\/)[A-Za-z0-9!_.*'()/-]*$/,
      'a key prefix like "rates/" (no leading slash, no "." or ".." segments)',
    )
      .default('')
      .describe(
        'Key prefix: "rates" or "rates/" puts parserfile.xml at rates/parserfile.xml. Default: the bucket root.',
      ),
    region: text(/^[a-z0-9][a-z0-9-]*$/, 'a region like "eu-central-1"')
      .optional()
      .describe(
        'Region of the bucket. Default: the AWS SDK chain (AWS_REGION, the profile). S3-compatible stores document theirs (often us-east-1 or auto).',
      ),
    endpoint: endpoint.optional().describe('Endpoint of an S3-compatible store (MinIO, Ceph, R2, …). Default: AWS S3.'),
    forcePathStyle: z
      .boolean()
      .default(false)
      .describe(
        'Address the bucket in the path (https://host/bucket/key) instead of the host name; most S3-compatible stores need it.',
      ),
    cacheControl: z
      .string()
      .min(1)
      .default('no-cache')
      .describe(
        'Cache-Control stored with each object and sent by S3 and the CDN in front of it. Default: no-cache (caches revalidate on every request).',
      ),
    accessKeyId: forbidden(),
    secretAccessKey: forbidden(),
    sessionToken: forbidden(),
    credentials: forbidden(),
  })
  .describe('Upload the exports to an S3 bucket (AWS or S3-compatible) after every build and on `ratefile publish`.');

export const publishSchema = z
  .strictObject({ s3: s3Schema.optional() })
  .default({})
  .describe('Where the exports are published besides the output folder.');

export type PublishBlock = z.output<typeof publishSchema>;

/** "rates" → "rates/": a prefix names a folder of keys. */
const folderPrefix = (prefix: string): string => (prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`);

export function normalizePublish(block: PublishBlock): PublishTargets {
  if (!block.s3) return {};
  const { bucket, prefix, region, endpoint: url, forcePathStyle, cacheControl } = block.s3;
  const s3: S3Target = {
    bucket,
    prefix: folderPrefix(prefix),
    forcePathStyle,
    cacheControl,
    ...(region === undefined ? {} : { region }),
    ...(url === undefined ? {} : { endpoint: url }),
  };
  return { s3 };
}
