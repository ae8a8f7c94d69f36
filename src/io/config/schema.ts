// The shape of ratefile.config.yaml: one schema, used to validate the file and to emit JSON Schema for editors.
import { z } from 'zod';
import { alertsSchema } from '../../model/alerts.js';
import { haSchema } from '../../model/ha.js';
import { controlSchema } from '../../model/control.js';
import { archiveSchema, quoteSchema } from '../../model/archive.js';
import { ratesSchema } from '../../model/rates.js';
import { reserveCapField, reserveFormulaField, reserveMarginsField } from '../../model/reserve-shape.js';
import { accessLogSchema, monitorsSchema } from '../../model/readers.js';
import { watchSchema } from '../../model/watch.js';
import { competeSchema } from '../compete/config.js';
import { publishSchema } from '../hosting/config.js';
import { reserveDefinitions } from '../reserves/index.js';
import { sourceDefinitions } from '../sources/index.js';
import { DEFAULT_HOST } from '../../base/config/defaults.js';
import { referenceDefaults } from '../../model/config.js';
import { cacheControlPattern } from '../../pure/edge/headers.js';
import {
  describeValue,
  amount,
  amountWithUnit,
  cityCode,
  currencyCode,
  assetCode,
  duration,
  fee,
  floating,
  hours,
  label,
  minutes,
  oneOrMany,
  pairText,
  movePercentage,
  percentage,
  precision,
  tag,
  text,
  userAgentText,
} from '../../base/config/fields.js';

/** How many distinct answers confirm a jump (`guards.confirmAnswers`, once `confirmBuilds`). */
const confirmations = z.int().min(1).max(1000).optional();

/** `"BTC/USDT * USDT/RUB"` is the same chain as `[BTC/USDT, USDT/RUB]`. */
export const chainAsList = (value: unknown): unknown =>
  typeof value === 'string' ? value.split('*').map((pair) => pair.trim()) : value;

const currency = z.strictObject({
  asset: assetCode
    .optional()
    .describe('What the code is priced as (RUB for SBERRUB). Known monitor codes default from the shipped code list.'),
  precision: precision
    .optional()
    .describe('Decimal places of amounts in this currency. Default: 8 for crypto, 2 otherwise.'),
  ratePrecision: precision
    .optional()
    .describe(
      'Decimal places of a rate side counted in this currency (e.g. in 93.7521:1). Default: precision. Finer steps suit stablecoins and cash.',
    ),
  reserve: amount
    .optional()
    .describe('Reserve: the most a client can receive of this currency. Set this or reserveFrom.'),
  reserveFrom: z
    .string()
    .optional()
    .describe(
      'Name of a reserve source (`reserves:`) the reserve is read from on every build, by this currency code; never replaced by a number here.',
    ),
  reserveFormula: reserveFormulaField.optional(),
  reserveCap: reserveCapField.optional(),
});

/** A reference band: a percentage above 0 like "3%". */
const band = percentage.refine((value) => Number.parseFloat(value) > 0, {
  error: (issue) => `expected a band above 0% like "3%", got ${describeValue(issue.input)}`,
});

/** `guards.reference`: the independent reference of a market one source alone sets (src/pure/guards/reference.ts). */
const referenceGuard = z
  .strictObject({
    band: band
      .optional()
      .describe(
        `How far a market one source alone sets may be from other sources' quotes of it, a cross through them or a consensus's other terms (default ${referenceDefaults.band}).`,
      ),
    rivalsBand: band
      .optional()
      .describe(
        `How far it may be from the median of the best BestChange rivals' rates, which include their margins (default ${referenceDefaults.rivalsBand}).`,
      ),
    rivals: z
      .int()
      .min(1)
      .max(50)
      .optional()
      .describe(`How many of the best rivals the median is taken of (default ${referenceDefaults.rivals}).`),
    pairs: z
      .record(pairText, band)
      .optional()
      .describe('A band per pair (either way round), like { USDT/RUB: "5%" }, in place of `band` for that pair.'),
  })
  .optional()
  .describe(
    'Where one source alone sets a market, an independent reference of it: past the band, the direction is withheld (kind `reference`).',
  );

/** Fields a direction may set, which `defaults` may also set for every direction. */
const directionFields = {
  margin: percentage.describe('Margin against the client on top of the market rate, e.g. "1.5%".'),
  min: amountWithUnit.describe('Minimum per order; in the from currency, or with a unit like "5000 RUB".'),
  max: amountWithUnit.describe(
    'Maximum per order; in the from currency, or with a unit. Always capped by the reserve.',
  ),
  params: z.array(label).describe('Labels published in <param>.'),
  switchesFrom: z
    .string()
    .describe(
      'Reserve source (`reserves:`) whose entry under the direction id (BTC>SBERRUB) switches it on or off (`enabled`) and gives its labels (`labels`, in place of params) at every build.',
    ),
  fromfee: fee.describe('Extra fee on what the client sends.'),
  tofee: fee.describe('Extra fee on what the client receives.'),
  minfee: fee.describe('Minimum fee for the direction.'),
  floating: floating.describe('Floating rate: minutes the rate is held, or a percentage move.'),
  delay: minutes.describe('Deferred payout, in minutes.'),
  tags: z.array(tag).describe('Tags that export templates select directions by.'),
  hours: oneOrMany(hours, 'working hours').describe(
    'Working hours, e.g. "Mon-Fri 09:00-21:00 Europe/Moscow"; outside them the direction is not published.',
  ),
  referenceBand: band.describe(
    "How far its market may be from an independent reference (another source's quote, a cross, BestChange rivals) before it is withheld; in place of guards.reference's bands.",
  ),
};

const optionalFields = <T extends Record<string, z.ZodType>>(fields: T) =>
  Object.fromEntries(Object.entries(fields).map(([key, schema]) => [key, schema.optional()])) as {
    [K in keyof T]: z.ZodOptional<T[K]>;
  };

const direction = z.strictObject({
  from: oneOrMany(currencyCode, 'currency code').describe(
    'Currency the client gives (a key of `currencies`), or a list.',
  ),
  to: oneOrMany(currencyCode, 'currency code').describe(
    'Currency the client receives (a key of `currencies`), or a list.',
  ),
  chain: z
    .preprocess(chainAsList, z.array(pairText).min(1, { error: 'expected at least one pair' }))
    .optional()
    .describe(
      'Quote pairs from the from asset to the to asset: [BTC/USDT, USDT/RUB] or "BTC/USDT * USDT/RUB". Found automatically when absent.',
    ),
  reserve: amount
    .optional()
    .describe("Reserve for this direction, in the to currency; default: the to currency's reserve."),
  reserveFrom: z
    .string()
    .optional()
    .describe(
      "Reserve source this direction's reserve (the to currency's entry) is read from; default: the to currency's.",
    ),
  reserveFormula: reserveFormulaField.optional(),
  reserveCap: reserveCapField.optional(),
  reserveMargins: reserveMarginsField.optional(),
  cities: z
    .array(cityCode)
    .min(1, { error: 'expected at least one city code' })
    .optional()
    .describe('Cash cities: one item per city.'),
  compete: competeSchema.optional(),
  tiers: z
    .array(
      z.strictObject({
        from: amountWithUnit.describe('Order amount the tier starts at: in the from currency, or like "10000 RUB".'),
        margin: percentage.describe('Margin from that amount on.'),
      }),
    )
    .min(1, { error: 'expected at least one tier' })
    .optional()
    .describe(
      "Amount tiers: from an order amount on, another margin. Published as EREF 1.1 <step> elements; the classic file and JSON publish the first tier (the direction's margin).",
    ),
  ...optionalFields(directionFields),
});

/**
 * One of `definitions`' options, chosen by its `type:`. The error names the types there are; `what` says what a
 * type is here ("a source type"), for a type that is none of them.
 */
function chosenByType(definitions: readonly { type: string; options: z.ZodType }[], what: string) {
  return z.discriminatedUnion(
    'type',
    definitions.map((definition) => definition.options) as unknown as [z.ZodObject, ...z.ZodObject[]],
    {
      error: (issue) => {
        const types = definitions.map((d) => d.type).join(', ');
        const input = issue.input;
        if (typeof input !== 'object' || input === null || Array.isArray(input))
          return `expected a mapping with a type (${types}), got ${describeValue(input)}`;
        const type = (input as { type?: unknown }).type;
        return type === undefined
          ? `required: expected one of ${types}`
          : `expected ${what}, one of ${types}, got ${describeValue(type)}`;
      },
    },
  );
}

const source = chosenByType(sourceDefinitions, 'a source type');
const reserveSource = chosenByType(reserveDefinitions, 'a reserve source type');

export const sourceName = text(/^[a-z][a-z0-9_-]*$/, 'a source name in lower case like "backoffice"');

export { DEFAULT_HOST };

/** A Cache-Control value: directives like `no-cache` or `max-age=30`, comma-separated. */
const cacheDirectives = text(
  cacheControlPattern,
  'cache directives like "no-cache" or "max-age=30, stale-if-error=60"',
);

export const configSchema = z
  .strictObject({
    schedule: z
      .string()
      .default('*/30 * * * * *')
      .describe('Cron expression for rebuilds (node-cron, seconds field allowed).'),
    log: z
      .strictObject({
        heartbeat: duration
          .refine((ms) => ms >= 1_000, { error: 'expected a duration of 1s or more, like "10m"' })
          .default(600_000)
          .describe(
            'While builds change nothing, one line at most this often says how many ran and how old the files are (default 10m).',
          ),
      })
      .default({ heartbeat: 600_000 })
      .describe(
        'The build log of `ratefile start`: a build line only when something changed, and a heartbeat between.',
      ),
    server: z
      .strictObject({
        port: z
          .int()
          .min(0)
          .max(65535)
          .default(8080)
          .describe('Port of the built-in server; PORT or --port override it.'),
        host: z
          .string()
          .min(1)
          .default(DEFAULT_HOST)
          .describe(
            'Address the built-in server listens on (default 127.0.0.1: this machine only; 0.0.0.0: every interface).',
          ),
        private: z
          .strictObject({
            host: z
              .string()
              .min(1)
              .default(DEFAULT_HOST)
              .describe('Address of the private listener (default 127.0.0.1).'),
            port: z.int().min(0).max(65535).describe('Port of the private listener (0: any free port).'),
          })
          .optional()
          .describe(
            'A second listener for the dashboard (`/`, `/dashboard.json`), `/metrics` and the full `/healthz`. On a `host` that is not loopback (0.0.0.0, a LAN address), the server answers only the exports and a bare `/healthz`; these pages answer here instead.',
          ),
        headers: z
          .strictObject({
            'Cache-Control': cacheDirectives
              .optional()
              .describe('For browsers and plain proxies (default `no-cache`: kept, but asked again at every poll).'),
            'CDN-Cache-Control': cacheDirectives
              .optional()
              .describe(
                'For a CDN in front (RFC 9213; Cloudflare honours it over Cache-Control). Default `max-age=` the schedule period in seconds: a cached copy is never more than one build behind.',
              ),
          })
          .optional()
          .describe(
            'The caching headers every export is served with by the built-in server, and printed by `ratefile edge` for nginx and Cloudflare.',
          ),
      })
      .default({ port: 8080, host: DEFAULT_HOST }),
    output: z.string().min(1).default('public').describe('Folder the exports are written to, relative to this file.'),
    templates: z
      .string()
      .min(1)
      .default('templates')
      .describe('Folder of export templates (one <name>.yaml per export), relative to this file.'),
    sources: z
      .record(sourceName, source)
      .refine((sources) => Object.keys(sources).length > 0, { error: 'expected at least one source' })
      .describe('Rate sources by name.'),
    rates: ratesSchema,
    reserves: z
      .record(sourceName, reserveSource)
      .default({})
      .describe(
        'Reserve sources by name: where the back office keeps reserves (file, http, sql); referenced by reserveFrom.',
      ),
    currencies: z
      .record(currencyCode, currency)
      .refine((currencies) => Object.keys(currencies).length > 0, { error: 'expected at least one currency' })
      .describe('Currencies by monitor code (SBERRUB, BTC, CASHUSD…).'),
    defaults: z
      .strictObject(optionalFields(directionFields))
      .default({})
      .describe('Values every direction gets unless it sets its own.'),
    manualHours: oneOrMany(hours, 'working hours')
      .optional()
      .describe(
        'Working hours of every `manual` direction that sets none: monitors require manual directions off out of hours.',
      ),
    maintenance: z.boolean().default(false).describe('Publish every export empty (also `ratefile maintenance on`).'),
    state: z
      .string()
      .min(1)
      .default('.ratefile')
      .describe(
        'Folder for state kept between builds (last published rates, status), relative to this file; keep it out of the served folder.',
      ),
    guards: z
      .strictObject({
        maxJump: percentage
          .default('10%')
          .describe('A rate moving more than this from its last published value is held back…'),
        confirmAnswers: confirmations.describe(
          '…until seen on this many distinct answers of the sources behind it (default 3; a quote reused between fetches is one answer), or accepted with `ratefile accept FROM TO`.',
        ),
        confirmBuilds: confirmations.describe('The older name of `confirmAnswers`, still read.'),
        hardJump: movePercentage
          .optional()
          .describe(
            'A rate past this from its last published value, as a ratio either way (30%: above ×1.3 or below ÷1.3), is never published by confirmations: only `ratefile accept FROM TO` publishes it. Default: three times maxJump.',
          ),
        reference: referenceGuard,
      })
      .refine((guards) => guards.confirmAnswers === undefined || guards.confirmBuilds === undefined, {
        error: 'expected confirmAnswers or its older name confirmBuilds, not both',
        path: ['confirmBuilds'],
      })
      .superRefine((guards, context) => {
        if (guards.hardJump === undefined || Number.parseFloat(guards.hardJump) > Number.parseFloat(guards.maxJump))
          return;
        context.addIssue({
          code: 'custom',
          path: ['hardJump'],
          input: guards.hardJump,
          message: `expected a percentage above maxJump (${guards.maxJump}), got ${describeValue(guards.hardJump)}`,
        });
      })
      .default({ maxJump: '10%' }),
    health: z
      .strictObject({
        failAfterPeriods: z
          .int()
          .min(1)
          .max(1000)
          .default(3)
          .describe(
            'Health is failing when the last successful build is older than this many schedule periods, or (with `ha:`) when no instance is known to have published for that long.',
          ),
        maxWithheld: percentage
          .default('25%')
          .describe(
            'Health is failing when more than this share of the directions that should be published now are withheld for a fault.',
          ),
      })
      .default({ failAfterPeriods: 3, maxWithheld: '25%' })
      .describe('Thresholds of /healthz and `ratefile status`: ok, degraded or failing.'),
    directions: z
      .array(direction)
      .min(1, { error: 'expected at least one direction' })
      .describe('Exchange directions.'),
    publish: publishSchema,
    alerts: alertsSchema,
    ha: haSchema,
    control: controlSchema,
    archive: archiveSchema,
    quote: quoteSchema,
    monitors: monitorsSchema,
    accessLog: accessLogSchema,
    watch: watchSchema,
    userAgent: userAgentText
      .optional()
      .describe(
        'The User-Agent of the requests ratefile makes: to sources, reserve sources and feeds, of the watch from outside and of `probe` and `check --links` beside this config (default "ratefile/VERSION"; Node\'s own, `node`, is what some CDNs block).',
      ),
  })
  .describe('ratefile configuration');

export type ConfigFile = z.output<typeof configSchema>;
export type DirectionEntry = ConfigFile['directions'][number];
/** The config's fields besides its directions: what the model's shared parts are made of (src/io/config/normalize.ts). */
export type ConfigTop = Omit<ConfigFile, 'directions'>;

/**
 * JSON Schema (draft 2020-12) of a config or template file, for editors. Values that go through a
 * preprocess (amounts, fees, `floating`) also accept a plain YAML number, so the schema says so.
 */
export function toJsonSchema(schema: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
    override(context) {
      const def = (
        context.zodSchema as unknown as { _zod: { def: { type: string; in?: { _zod: { def: { type: string } } } } } }
      )._zod.def;
      if (def.type === 'pipe' && def.in?._zod.def.type === 'transform') {
        const { description, ...parsed } = context.jsonSchema;
        for (const key of Object.keys(context.jsonSchema)) delete context.jsonSchema[key];
        // A list (a chain) may also be written as one text, "A/B * B/C"; a text value as a plain number.
        const alternative = parsed.type === 'array' ? { type: 'string' } : { type: 'number', minimum: 0 };
        Object.assign(context.jsonSchema, { ...(description ? { description } : {}), anyOf: [alternative, parsed] });
      }
    },
  }) as Record<string, unknown>;
}

export const configJsonSchema = (): Record<string, unknown> => toJsonSchema(configSchema);
