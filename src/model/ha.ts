// The `ha:` block of the config: the lock that makes one of several instances the publisher (a warm standby).
// The lock's URL is never in the file: it names an environment variable, like the sql reserve source's.
import { z } from 'zod';

const envName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, { error: 'expected an environment variable name like "RATEFILE_LOCK_URL"' });

export const haSchema = z
  .strictObject({
    lock: z
      .strictObject({
        env: envName.describe(
          'Environment variable holding the lock database URL: postgres:// or postgresql:// (a session advisory lock), mysql:// or mariadb:// (GET_LOCK).',
        ),
      })
      .describe('Where the lock is held: { env: RATEFILE_LOCK_URL }.'),
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
