// The `http` reserve source: a JSON endpoint of the exchanger's own engine. The auth header's value comes from an
// environment variable and is never part of a message; `entries` is a path into the answer (like the json quote
// source's paths) to the mapping of codes to reserves; `time` optionally dates them.
import { z } from 'zod';
import { describeValue } from '../../base/config/fields.js';
import { RatefileError } from '../../base/errors.js';
import { redact, registerSecret } from '../../base/secrets.js';
import { getJson, httpTarget } from '../sources/http.js';
import { parsePath, valueAt } from '../sources/json.js';
import { httpOptions } from '../../pure/sources/options.js';
import { shown } from '../../pure/sources/values.js';
import { entriesOf } from '../../pure/reserves/entry.js';
import { documentTime } from './file.js';
import { defineReserveSource } from '../../model/reserve-source.js';

const { baseUrl: _baseUrl, priority: _priority, ...requestOptions } = httpOptions;

const jsonPath = z
  .string({ error: (issue) => `expected a path like "data.reserves", got ${describeValue(issue.input)}` })
  .refine((text) => parsePath(text) !== undefined, {
    error: (issue) => `expected a path like "data.reserves", got ${describeValue(issue.input)}`,
    abort: true,
  });

const httpUrl = z.string().refine(
  (value) => {
    try {
      return (
        ['http:', 'https:'].includes(new URL(value).protocol) &&
        new URL(value).username === '' &&
        new URL(value).password === ''
      );
    } catch {
      return false;
    }
  },
  // Credentials in the URL would end up in messages: they belong in `auth`.
  { error: (issue) => `expected an http(s) URL without credentials, got ${describeValue(issue.input)}`, abort: true },
);

const holds = (text: string, secret: string) => redact(text, secret) !== text;

export const httpReserves = defineReserveSource({
  type: 'http',
  options: z.strictObject({
    type: z.literal('http'),
    url: httpUrl.describe('The JSON endpoint; RATEFILE_HTTP_URL replaces its scheme, host and port (for a replay).'),
    auth: z
      .strictObject({
        header: z
          .string()
          .regex(/^[A-Za-z0-9-]{1,64}$/, { error: 'expected a header name like "Authorization"' })
          .default('Authorization'),
        env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, {
          error: 'expected an environment variable name like "BACKOFFICE_TOKEN"',
        }),
      })
      .optional()
      .describe('Header sent with the request, its value from an environment variable (never written in the config).'),
    entries: jsonPath
      .optional()
      .describe('Path of the mapping of currency codes to reserves in the answer; default: the whole answer.'),
    time: jsonPath
      .optional()
      .describe('Path of the time the reserves are valid (ISO 8601); default: when they were fetched.'),
    ...requestOptions,
  }),
  async fetchReserves(options, context) {
    const secret = options.auth ? context.env[options.auth.env] : undefined;
    // Registered too (in any of its forms: URL-encoded, base64…), so no sink shows it even where this source's catch is not on the way.
    registerSecret(secret);
    if (options.auth && (secret === undefined || secret === '')) {
      throw new RatefileError(
        'E_SOURCE',
        `${context.name}: environment variable ${options.auth.env} (the ${options.auth.header} header) is not set`,
      );
    }
    const configured = new URL(options.url);
    try {
      const target = httpTarget('http', configured.origin, options, context);
      const headers = options.auth && secret ? { [options.auth.header]: secret } : undefined;
      const { where, body } = await getJson(context, target, {
        path: configured.pathname + configured.search,
        ...(headers ? { headers } : {}),
      });
      const at = options.entries === undefined ? body : valueAt(body, parsePath(options.entries) ?? []);
      const entries = entriesOf(at);
      if (!entries)
        throw new RatefileError(
          'E_SOURCE',
          `${context.name}: ${where}: ${options.entries ?? 'the answer'} ${shown(at)} is not a mapping of currency codes to reserves`,
        );
      const time =
        options.time === undefined
          ? context.now()
          : documentTime(
              valueAt(body, parsePath(options.time) ?? []),
              context.now(),
              `${context.name}: ${where}: ${options.time}`,
            );
      return { entries, time };
    } catch (error) {
      if (
        !(error instanceof RatefileError) ||
        !secret ||
        !holds(`${error.message}\n${error.details.join('\n')}`, secret)
      )
        throw error;
      throw new RatefileError('E_SOURCE', redact(error.message, secret), {
        details: error.details.map((line) => redact(line, secret)),
      });
    }
  },
});
