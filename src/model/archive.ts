// The `archive:` block (every published export kept, src/io/archive/) and the `quote:` block (the signed quote of
// `/quote` and `ratefile quote`), their schema and their normalized model.
import { z } from 'zod';
import { duration } from '../base/config/fields.js';

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, {
  error: 'expected an environment variable name like "RATEFILE_ARCHIVE_KEY"',
});

const sizePattern = /^(\d+(?:\.\d+)?)\s?(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)?$/;
const sizeUnits: Record<string, number> = {
  B: 1,
  KB: 1e3,
  MB: 1e6,
  GB: 1e9,
  TB: 1e12,
  KiB: 2 ** 10,
  MiB: 2 ** 20,
  GiB: 2 ** 30,
  TiB: 2 ** 40,
};

/** A size on disk: `500MB`, `2GiB`, or a number of bytes. */
const size = z
  .union([z.number(), z.string()])
  .refine((value) => sizePattern.test(String(value).trim()), {
    error: 'expected a size like "500MB", "2GiB" or a number of bytes',
  })
  .transform((value) => {
    const [, amount = '0', unit = 'B'] = sizePattern.exec(String(value).trim()) ?? [];
    return Math.round(Number(amount) * (sizeUnits[unit] ?? 1));
  })
  .refine((bytes) => bytes >= 1 << 20, { error: 'expected a size of 1MiB or more' });

const keySource = z
  .union([
    z.strictObject({ env: envName.describe('Environment variable holding the key.') }),
    z.strictObject({ file: z.string().min(1).describe('File holding the key, relative to the config (owner-only).') }),
  ])
  .describe(
    'The operator key that signs the records and the quotes: an Ed25519 private key (PEM, or its 32-byte seed in hex or base64), from { env: NAME } or { file: path }; never logged.',
  );

export const archiveSchema = z
  .strictObject({
    enabled: z.boolean().default(true).describe('Keep every published export (default true).'),
    window: duration
      .refine((ms) => ms >= 3_600_000, { error: 'expected a duration of 1h or more, like "30d"' })
      .default(30 * 86_400_000)
      .describe('How long the records are kept (default 30d), within the budget.'),
    budget: size
      .default(4 * 2 ** 30)
      .describe('The most disk the records take (default 4GiB): the oldest segments go first when it is reached.'),
    store: z
      .enum(['files', 'postgres'])
      .default('files')
      .describe(
        '`files` (default): segments in the state folder. `postgres`: a table in the database named by `env` (default: `ha.lock.env`).',
      ),
    env: envName
      .optional()
      .describe('With `store: postgres`: the variable holding the database URL (default: the `ha:` lock’s).'),
    key: keySource.optional(),
  })
  .default({ enabled: true, window: 30 * 86_400_000, budget: 4 * 2 ** 30, store: 'files' })
  .describe('The archive of every published export: any export at any moment of the window rebuilt byte for byte.');

export const quoteSchema = z
  .strictObject({
    validFor: duration
      .refine((ms) => ms >= 1000 && ms <= 86_400_000, { error: 'expected a duration from 1s to 1d, like "15m"' })
      .default(900_000)
      .describe('How long a signed quote holds (default 15m): its `validUntil`.'),
    export: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*\.xml$/, {
        error: 'expected an XML export file like "parserfile.xml"',
      })
      .optional()
      .describe('The export a quote reads by default (default: the primary export); `?export=` picks another.'),
  })
  .default({ validFor: 900_000 })
  .describe('The signed quote of `/quote` and `ratefile quote` (signed with `archive.key`).');

export type ArchiveKeySource = { env: string } | { file: string };

/** The `archive:` block, normalized. */
export interface ArchiveConfig {
  readonly enabled: boolean;
  readonly windowMs: number;
  readonly budgetBytes: number;
  readonly store: 'files' | 'postgres';
  /** With `store: postgres`: the variable holding the URL. */
  readonly env?: string;
  readonly key?: Readonly<ArchiveKeySource>;
}

export interface QuoteConfig {
  readonly validForMs: number;
  readonly export?: string;
}

export function normalizeArchive(entry: z.output<typeof archiveSchema>, lockEnv: string | undefined): ArchiveConfig {
  const env = entry.env ?? (entry.store === 'postgres' ? lockEnv : undefined);
  return {
    enabled: entry.enabled,
    windowMs: entry.window,
    budgetBytes: entry.budget,
    store: entry.store,
    ...(env === undefined ? {} : { env }),
    ...(entry.key ? { key: entry.key } : {}),
  };
}

export const normalizeQuote = (entry: z.output<typeof quoteSchema>): QuoteConfig => ({
  validForMs: entry.validFor,
  ...(entry.export ? { export: entry.export } : {}),
});

/** The archive's part of the status (`ratefile status`, the dashboard, /healthz). */
export interface ArchiveStatus {
  store: 'files' | 'postgres';
  windowMs: number;
  budgetBytes: number;
  /** What the records take now. */
  bytes: number;
  /** When the oldest record kept was published (the window actually kept starts there). */
  oldest?: string;
  /** The newest record. */
  last?: { seq: number; hash: string; build: string; published: string };
  signed: boolean;
  /** The operator key's public half (base64 of 32 bytes), when records are signed. */
  publicKey?: string;
  /** The last record a verification found good, and when it ran. */
  verified?: { seq: number; hash?: string; at: string; ok?: boolean; problem?: string };
  /** Records made but not yet appended (the store refused them). */
  pending?: number;
  /** Why the last record could not be appended (the alert `archive`). */
  problem?: string;
}
