// A loopback server in the shape of BestChange's API v2 (`/v2/{key}/…`), answering from the synthesized fixtures
// in test/fixtures/bestchange-v2/ (see its README): the catalogues, and `rates/` for exactly the tokens asked.
// A test counts the requests per endpoint and injects faults per request (a status, a Retry-After, a cut body).
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { repoRoot } from './process.js';

/** The key every test sends: 32 letters and digits like BestChange's. */
export const testKey = 'Zq7Rk2Lm9Pw4Xs6Tb1Nc8Vd3Hf5Jg0Ay';

const dir = `${repoRoot}test/fixtures/bestchange-v2/`;
export const v2File = (name: string) => readFileSync(`${dir}${name}`, 'utf8');

export interface V2Data {
  currencies: string;
  cities: string;
  changers: string;
  /** Offers by token, as JSON text of each token's list (kept as text: numbers stay exactly as written). */
  offers: Map<string, string>;
}

/** The fixtures; `offers` split per token by the JSON reader, each re-written from the parsed value (same numbers). */
export function v2Data(): V2Data {
  const rates = JSON.parse(v2File('rates.json')) as Record<string, unknown[]>;
  return {
    currencies: v2File('currencies.json'),
    cities: v2File('cities.json'),
    changers: v2File('changers.json'),
    offers: new Map(Object.entries(rates).map(([token, list]) => [token, JSON.stringify(list)])),
  };
}

export interface V2Answer {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  /** Close the connection without an answer. */
  destroy?: boolean;
}

export interface V2Server {
  url: string;
  /** Every path asked, as sent (the key included). */
  paths: string[];
  /** Requests per endpoint: `currencies`, `cities`, `changers`, `rates`. */
  count(endpoint: string): number;
  /** A fault for a request: endpoint and its 1-based number among that endpoint's requests; undefined: answer normally. */
  fault: ((endpoint: string, n: number) => V2Answer | undefined) | undefined;
  data: V2Data;
  close(): Promise<void>;
}

export async function startV2(data: V2Data = v2Data(), key = testKey): Promise<V2Server> {
  const paths: string[] = [];
  const counts = new Map<string, number>();
  const state: V2Server = {
    url: '',
    paths,
    count: (endpoint) => counts.get(endpoint) ?? 0,
    fault: undefined,
    data,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((request, response) => {
    const path = request.url ?? '';
    paths.push(path);
    const match = /^\/v2\/([^/]*)\/([a-z]+)\/?(.*)$/.exec(path);
    const endpoint = match?.[2] ?? '';
    const n = (counts.get(endpoint) ?? 0) + 1;
    counts.set(endpoint, n);
    const send = (answer: V2Answer) => {
      if (answer.destroy) return void request.socket.destroy();
      response.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
      response.end(answer.body ?? '');
    };
    const fault = state.fault?.(endpoint, n);
    if (fault) return send(fault);
    // The body of a refused key echoes it: what ratefile logs of it must not.
    if (match?.[1] !== key) return send({ status: 401, body: `{"error":"unknown api key ${match?.[1] ?? ''}"}` });
    if (endpoint === 'currencies') return send({ body: data.currencies });
    if (endpoint === 'cities') return send({ body: data.cities });
    if (endpoint === 'changers') return send({ body: data.changers });
    if (endpoint === 'rates') {
      const tokens = (match?.[3] ?? '').split('+').filter(Boolean);
      const known = tokens.filter((token) => data.offers.has(token));
      return send({ body: `{"rates":{${known.map((token) => `"${token}":${data.offers.get(token)}`).join(',')}}}` });
    }
    send({ status: 404, body: '{"error":"not found"}' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}
