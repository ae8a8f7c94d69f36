// The `bestchange` source with `api: v2`: BestChange's keyed JSON API (`{host}/v2/{key}/…`), asked for exactly
// the pairs the config competes in. The key is a path segment, so no request is ever named by its path in a
// message; hosts are tried in order (www, then the mirrors); the catalogues are kept for hours; a refused key
// and a 429 with Retry-After stop the fetch at once. What public clients show of v2: docs/sources.md.
import {
  batches,
  parseChangers,
  parseCities,
  parseCurrencies,
  parseRates,
  ratesTokens,
  v2Feed,
  type RatesToken,
  type V2Catalogue,
} from '../../pure/bestchange/v2.js';
import type { BestChangeFeed, CompetitorRow } from '../../pure/bestchange/feed.js';
import { isRatefileError } from '../../base/errors.js';
import { registerSecret } from '../../base/secrets.js';
import { getJson, httpTarget, SourceError, type HttpOptions, type HttpTarget } from './http.js';
import type { SourceContext } from '../../model/source.js';

export const v2Host = 'https://www.bestchange.app';
export const v2Mirrors = ['https://mirror1.bestchange.app', 'https://mirror2.bestchange.app'] as const;
export const defaultKeyEnv = 'RATEFILE_BESTCHANGE_KEY';
/** Catalogues (currencies, cities, changers) change rarely: iEX keeps them for days; six hours by default. */
export const defaultCatalogueRefreshMs = 6 * 3_600_000;
/** A refused key is not asked again for this long (or before a reload or restart): never a loop of bad requests. */
export const refusedKeyPauseMs = 15 * 60_000;
/** Names come in English; the export city codes are matched on English names. */
const lang = 'en';
/** A key is a path segment: letters and digits (BestChange's are 32 characters), long enough to be redacted. */
const keyText = /^[A-Za-z0-9_-]{16,128}$/;

export interface V2Options extends HttpOptions {
  keyEnv?: string | undefined;
  mirrors?: string[] | undefined;
  catalogueRefresh?: number | undefined;
  cities?: Record<string, string> | undefined;
}

/** What a v2 fetch keeps for the next: the catalogue and when it was read. */
export interface V2State {
  catalogue: V2Catalogue;
  catalogueAt: number;
}

/**
 * The last catalogue read, also when the fetch failed after it (a 429 on `rates`), so the next try asks `rates`
 * only; the feed's own `BestChangeState.v2` covers the rest. Kept in the service's cache (`context.kept`) by source
 * name, valid for the hosts and city names it was read with: the service loads the config afresh for every build,
 * so the options object is new each time. Without a cache (`ratefile build`, one fetch), by the options object.
 */
const catalogues = new WeakMap<object, V2State>();
const keptKey = (name: string) => `bestchange-v2 catalogue: ${name}`;

function keptCatalogue(options: V2Options, context: SourceContext, hosts: readonly string[]) {
  const fingerprint = JSON.stringify([hosts, options.cities ?? {}]);
  return {
    get(): V2State | undefined {
      if (!context.kept) return catalogues.get(options);
      const kept = context.kept.get(keptKey(context.name)) as { fingerprint: string; state: V2State } | undefined;
      return kept?.fingerprint === fingerprint ? kept.state : undefined;
    },
    set(state: V2State): void {
      if (context.kept) context.kept.set(keptKey(context.name), { fingerprint, state });
      else catalogues.set(options, state);
    },
  };
}

/** The hosts asked, in order: RATEFILE_BESTCHANGE_URL or `baseUrl` or www.bestchange.app, then the mirrors. */
export function v2Hosts(options: V2Options, context: SourceContext): string[] {
  const first = httpTarget('bestchange', v2Host, options, context).baseUrl.replace(/\/+$/, '');
  // An overridden host (a test, a proxy) has no mirrors unless the config names them.
  const mirrors = options.mirrors ?? (first === v2Host ? [...v2Mirrors] : []);
  return [...new Set([first, ...mirrors.map((mirror) => mirror.replace(/\/+$/, ''))])];
}

const hostOf = (url: string) => new URL(url).host;

/** What asking the API goes by: the key (a path segment, never shown) and the hosts to try in order. */
interface V2Api {
  context: SourceContext;
  target: HttpTarget;
  hosts: readonly string[];
  key: string;
  /** The environment variable the key is in, named in messages. */
  keyEnv: string;
}

/** Fetch the feed: the catalogue when it is older than `catalogueRefresh`, then every batch of `rates`. */
export async function fetchV2(
  options: V2Options,
  context: SourceContext,
  previous: V2State | undefined,
): Promise<{ feed: BestChangeFeed; state: V2State; problems: string[] }> {
  const { key, keyEnv } = v2Key(options, context);
  const hosts = v2Hosts(options, context);
  const api: V2Api = { context, target: httpTarget('bestchange', v2Host, options, context), hosts, key, keyEnv };
  const state = await currentCatalogue(api, options, previous);
  const { catalogue } = state;
  const { tokens, problems } = ratesTokens(context.competes ?? [], catalogue);
  const { directions, rows } = await readRates(api, tokens, catalogue);
  return { feed: v2Feed(catalogue, directions, rows), state, problems };
}

/** The API key from the environment (registered as a secret at once), or a SourceError saying what is wrong with it. */
function v2Key(options: V2Options, context: SourceContext): { key: string; keyEnv: string } {
  const keyEnv = options.keyEnv ?? defaultKeyEnv;
  const key = context.env[keyEnv]?.trim();
  registerSecret(key);
  if (!key)
    throw new SourceError(`${context.name}: API v2 needs its key in the environment variable ${keyEnv} (unset)`);
  if (!keyText.test(key))
    throw new SourceError(
      `${context.name}: the key in ${keyEnv} is not an API v2 key (expected 16 to 128 letters and digits)`,
    );
  return { key, keyEnv };
}

/** The newer of the kept and the previous catalogue, read afresh (and kept at once) when older than its refresh. */
async function currentCatalogue(api: V2Api, options: V2Options, previous: V2State | undefined): Promise<V2State> {
  const now = api.context.now().getTime();
  const refresh = options.catalogueRefresh ?? defaultCatalogueRefreshMs;
  const keeping = keptCatalogue(options, api.context, api.hosts);
  const kept = keeping.get();
  const state = kept && (!previous || kept.catalogueAt > previous.catalogueAt) ? kept : previous;
  if (state && now - state.catalogueAt < refresh) return state;
  const currencies = await ask(api, `currencies/${lang}`, `currencies/${lang}`, parseCurrencies);
  const cities = await ask(api, `cities/${lang}`, `cities/${lang}`, (body) => parseCities(body, options.cities ?? {}));
  const changers = await ask(api, `changers/${lang}`, `changers/${lang}`, parseChangers);
  const read = { catalogue: { currencies, cities, changers }, catalogueAt: now };
  // Kept at once: a `rates` batch failing after it must not cost another read of the catalogues next time.
  keeping.set(read);
  return read;
}

/** Every batch of `rates`, in order: the competitors' rows by direction, and how many rows came. */
async function readRates(
  api: V2Api,
  tokens: readonly RatesToken[],
  catalogue: V2Catalogue,
): Promise<{ directions: Map<string, CompetitorRow[]>; rows: number }> {
  const directions = new Map<string, CompetitorRow[]>();
  let rows = 0;
  const parts = batches(tokens);
  for (const [index, batch] of parts.entries()) {
    const shown = `rates/ (batch ${index + 1} of ${parts.length}, ${batch.length} pairs)`;
    // Each batch into its own map (its tokens are its own): a host's bad answer leaves nothing behind.
    const into = await ask(api, `rates/${batch.map((item) => item.token).join('+')}`, shown, (body) => {
      const parsed = new Map<string, CompetitorRow[]>();
      rows = parseRates(body, batch, catalogue.changers, parsed, rows);
      return parsed;
    });
    for (const [directionKey, list] of into) directions.set(directionKey, list);
  }
  return { directions, rows };
}

/** GET one endpoint from the first host that answers; `read` checks the body (a bad one tries the next host). */
async function ask<T>(api: V2Api, path: string, shown: string, read: (body: unknown) => T): Promise<T> {
  const { context, target, hosts, key } = api;
  let last: SourceError | undefined;
  for (const host of hosts) {
    const label = `GET ${hostOf(host)}/v2/***/${shown}`;
    try {
      const { body } = await getJson(
        context,
        { ...target, baseUrl: host },
        { path: `/v2/${key}/${path}`, label, headers: { accept: 'application/json' } },
      );
      return readBody(context, label, body, read);
    } catch (error) {
      last = hostFailure(api, label, error);
    }
  }
  if (!last || hosts.length === 1) throw last ?? new SourceError(`${context.name}: no host to ask`);
  throw new SourceError(`${last.message} (and ${hosts.length - 1} other hosts failed too)`, {
    status: last.status,
    cause: last,
  });
}

/** `read` on an answer's body; a body it refuses is a SourceError naming the request, so the next host is tried. */
function readBody<T>(context: SourceContext, label: string, body: unknown, read: (body: unknown) => T): T {
  try {
    return read(body);
  } catch (error) {
    if (isRatefileError(error, 'E_SOURCE'))
      throw new SourceError(`${context.name}: ${label}: ${error.message}`, { cause: error });
    throw error;
  }
}

/**
 * A host's failure, to try the next host with; thrown on at once when no other host would do better: a refused key,
 * a 429 with Retry-After (the quota is the key's, not the host's), anything not a SourceError.
 */
function hostFailure(api: V2Api, label: string, error: unknown): SourceError {
  if (!(error instanceof SourceError)) throw error;
  if (error.status === 401 || error.status === 403)
    throw new SourceError(
      `${api.context.name}: ${label}: HTTP ${error.status}: the API key in ${api.keyEnv} is refused — a configuration error: check the key in the BestChange account; not asked again for ${refusedKeyPauseMs / 60_000} min or before a reload`,
      { status: error.status, retryAfterMs: refusedKeyPauseMs },
    );
  // The API asked for a pause: honoured for every host (the quota is the key's, not the host's).
  if (error.status === 429 && error.retryAfterMs !== undefined) throw error;
  return error;
}
