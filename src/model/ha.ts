// The `ha:` block of the config: the lock that makes one of several instances the publisher (a warm standby).
// The lock's URL is never in the file: it names an environment variable, like the sql reserve source's. Or, with no
// database at all, a lease object in an S3 bucket (src/io/ha/s3.ts), whose credentials come from the AWS SDK chain.
import { z } from 'zod';
import { text } from '../base/config/fields.js';

const envName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, { error: 'expected an environment variable name like "RATEFILE_LOCK_URL"' });

/** http(s) URL of an S3-compatible store without user or password (credentials never live in the config). */
const endpoint = z.url({
  protocol: /^https?$/,
  error: 'expected an http(s) URL like "https://storage.example", without user or password',
});

export const leaseSchema = z
  .strictObject({
    bucket: text(
      /^[a-z0-9][a-z0-9._-]{1,61}[a-z0-9]$/,
      'a bucket name like "rates-lock" (3 to 63 lower-case letters, digits, dots, hyphens)',
    ).describe('Bucket holding the lease object.'),
    key: text(/^(?!\/)[A-Za-z0-9!_.*'()/-]{1,512}$/, 'an object key like "ratefile/lease.json" (no leading slash)')
      .default('ratefile-lease.json')
      .describe('Key of the lease object (default "ratefile-lease.json"); the lock name is kept in its body.'),
    region: text(/^[a-z0-9][a-z0-9-]*$/, 'a region like "eu-central-1"')
      .optional()
      .describe('Region of the bucket. Default: the AWS SDK chain (AWS_REGION, the profile).'),
    endpoint: endpoint
      .refine((value) => !/^https?:\/\/[^/]*@/.test(value), {
        error: 'credentials are never read from the config file: use the AWS SDK chain',
      })
      .optional()
      .describe('Endpoint of an S3-compatible store that honours conditional writes (Ceph RGW, …). Default: AWS S3.'),
    forcePathStyle: z
      .boolean()
      .default(false)
      .describe('Address the bucket in the path (https://host/bucket/key); most S3-compatible stores need it.'),
  })
  .describe(
    'A lease object in an S3 bucket: created with If-None-Match: *, renewed with If-Match on its ETag (no database).',
  );

export type LeaseTarget = z.output<typeof leaseSchema>;

export const haSchema = z
  .strictObject({
    lock: z
      .strictObject({
        env: envName
          .optional()
          .describe(
            'Environment variable holding the lock database URL: postgres:// or postgresql:// (a session advisory lock), mysql:// or mariadb:// (GET_LOCK).',
          ),
        s3: leaseSchema.optional(),
      })
      .refine((lock) => (lock.env === undefined) !== (lock.s3 === undefined), {
        error: 'expected one of env (a lock database) or s3 (a lease object), not both or neither',
      })
      .describe(
        'Where the lock is held: { env: RATEFILE_LOCK_URL } (a database) or { s3: { bucket, key } } (a lease).',
      ),
    name: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,48}$/, { error: 'expected a lock name of 1..48 letters, digits, _ . -' })
      .default('ratefile')
      .describe('The lock every instance of one deployment shares (default "ratefile"); another name, another pair.'),
    instance: z
      .string()
      .regex(/^[A-Za-z0-9_.:-]{1,64}$/, { error: 'expected an instance name of 1..64 letters, digits, _ . : -' })
      .optional()
      .describe("This instance's name in status, logs and the lock's record (default: the host name)."),
    allowConfigMismatch: z
      .boolean()
      .default(false)
      .describe(
        'Take over even when the last holder published from a different config (its hash differs); default false.',
      ),
  })
  .optional()
  .describe('Warm standby: every instance builds, only the holder of this lock publishes (docs/deploy.md).');

export type HaConfig = NonNullable<z.output<typeof haSchema>>;
