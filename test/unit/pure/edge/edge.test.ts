// `ratefile edge`: the nginx lines and the Cloudflare rules made from the config. The Cloudflare expressions are
// read back by a small parser of the Rules language's grammar for what they use (fields, operators, string and IP
// lists, parentheses): balanced, quoted, valid addresses, known fields and operators. nginx's own parser reads the
// nginx lines in test/nginx/edge.test.ts.
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { describe, expect, it } from 'vitest';
import { parseNetwork } from '../../../../src/model/readers.js';
import { cloudflareRecipe, cloudflareRules } from '../../../../src/pure/edge/cloudflare.js';
import { defaultCdnCacheControl, exportHeaders, freshSeconds } from '../../../../src/pure/edge/headers.js';
import { exportPaths, type EdgeInput } from '../../../../src/pure/edge/input.js';
import { nginxRecipe } from '../../../../src/pure/edge/nginx.js';

const input: EdgeInput = {
  configFile: 'ratefile.config.yaml',
  paths: exportPaths(['parserfile.xml', 'reffile.xml', 'rates.json'], '/'),
  monitors: [
    { name: 'bestchange', agent: '/^BestChange/', addresses: ['162.19.29.225'], windowMs: 600_000 },
    { name: 'exchangesumo', addresses: ['46.4.58.77', '2001:db8::/32'], windowMs: 600_000 },
    { name: 'kurses', agent: 'kurses.com.ua bot "x"', addresses: [], windowMs: 600_000 },
  ],
  headers: exportHeaders({}, 30_000),
  periodSeconds: 30,
};

const fields = new Set(['http.request.uri.path', 'http.host', 'ip.src', 'http.user_agent']);
const comparisons = new Set(['eq', 'ne', 'contains', 'in']);

/** Tokens of an expression: strings, `{`/`}`/`(`/`)`, and bare words (fields, operators, IP addresses). */
function tokens(expression: string): string[] {
  const found: string[] = [];
  const pattern = /\s*("(?:[^"\\]|\\.)*"|[{}()]|[^\s{}()"]+)/gy;
  let match: RegExpExecArray | null;
  let at = 0;
  while ((match = pattern.exec(expression)) !== null) {
    found.push(match[1]!);
    at = pattern.lastIndex;
  }
  if (expression.slice(at).trim() !== '') throw new Error(`unreadable from ${JSON.stringify(expression.slice(at))}`);
  return found;
}

/**
 * Parses `expr := term (('and'|'or') term)*; term := 'not'? ( '(' expr ')' | field op value ); value := string |
 * '{' (string+ | ip+) '}' | ip`; throws on anything else. Returns the fields used.
 */
function parseRule(expression: string): string[] {
  const list = tokens(expression);
  let i = 0;
  const used: string[] = [];
  const next = () => {
    const token = list[i++];
    if (token === undefined) throw new Error(`unexpected end of ${expression}`);
    return token;
  };
  const isString = (token: string) => /^"(?:[^"\\]|\\.)*"$/.test(token);
  const isAddress = (token: string) => parseNetwork(token) !== undefined;
  const value = (field: string) => {
    const token = next();
    const ipField = field === 'ip.src';
    if (token === '{') {
      let count = 0;
      for (let token = next(); token !== '}'; token = next(), count++)
        if (ipField ? !isAddress(token) : !isString(token)) throw new Error(`${token} in a list of ${field}`);
      if (count === 0) throw new Error('an empty list');
    } else if (ipField ? !isAddress(token) : !isString(token)) throw new Error(`${token} as a value of ${field}`);
  };
  const term = () => {
    let token = next();
    if (token === 'not') token = next();
    if (token === '(') {
      expr();
      if (next() !== ')') throw new Error('unbalanced parentheses');
      return;
    }
    if (!fields.has(token)) throw new Error(`unknown field ${token}`);
    used.push(token);
    const op = next();
    if (!comparisons.has(op)) throw new Error(`unknown operator ${op}`);
    value(token);
  };
  const expr = () => {
    term();
    while (list[i] === 'and' || list[i] === 'or') {
      i++;
      term();
    }
  };
  expr();
  if (i !== list.length) throw new Error(`left over: ${list.slice(i).join(' ')}`);
  return used;
}

describe('the caching headers', () => {
  it('default to no-cache and max-age= the schedule period', () => {
    expect(exportHeaders({}, 300_000)).toEqual({ cacheControl: 'no-cache', cdnCacheControl: 'max-age=300' });
    expect(defaultCdnCacheControl(500)).toBe('max-age=1');
    expect(exportHeaders({ cacheControl: 'no-store', cdnCacheControl: 'no-store' }, 1).cdnCacheControl).toBe(
      'no-store',
    );
  });

  it('say how long a cache may keep a copy without asking', () => {
    expect(freshSeconds('no-cache')).toBe(0);
    expect(freshSeconds('public, max-age=30, s-maxage=60')).toBe(60);
    expect(freshSeconds('public')).toBeUndefined();
  });
});

describe('ratefile edge cloudflare', () => {
  it('makes a skip rule of the export paths and every monitor address, and a cache rule of the paths', () => {
    const rules = cloudflareRules(input);
    expect(rules.skip).toBe(
      '(http.request.uri.path in {"/parserfile.xml" "/reffile.xml" "/rates.json"} and ip.src in {162.19.29.225 46.4.58.77 2001:db8::/32})',
    );
    expect(rules.exports).toBe('(http.request.uri.path in {"/parserfile.xml" "/reffile.xml" "/rates.json"})');
    expect(rules.agentOnly).toEqual(['kurses']);
    expect(rules.ipAccess.map((entry) => entry.address)).toEqual(['162.19.29.225', '46.4.58.77', '2001:db8::/32']);
    expect(rules.headers).toEqual({ 'Cache-Control': 'no-cache', 'CDN-Cache-Control': 'max-age=30' });
  });

  it('writes expressions the Rules language reads: balanced, quoted, valid addresses, known fields and operators', () => {
    const hosts = [undefined, 'rates.example.com', 'we"ird\\host'];
    for (const host of hosts) {
      const rules = cloudflareRules({
        ...input,
        paths: exportPaths(['parserfile.xml', 'a"b.xml'], '/rates/'),
        ...(host ? { host } : {}),
      });
      expect(parseRule(rules.exports)).toEqual([...(host ? ['http.host'] : []), 'http.request.uri.path']);
      expect(parseRule(rules.skip!)).toEqual([...(host ? ['http.host'] : []), 'http.request.uri.path', 'ip.src']);
    }
    for (const entry of cloudflareRules(input).ipAccess) expect(parseNetwork(entry.address)).toBeDefined();
    expect(isIP('162.19.29.225')).toBe(4);
  });

  it('the checker itself refuses what Cloudflare would', () => {
    for (const broken of [
      '(http.request.uri.path in {"/a.xml" "/b.xml")',
      '(http.request.uri.path in {/a.xml})',
      '(ip.src in {162.19.29.300})',
      '(http.request.path eq "/a.xml")',
      '(http.request.uri.path equals "/a.xml")',
      '(http.request.uri.path in {})',
      '(http.request.uri.path eq "/a.xml"',
      '(http.request.uri.path eq "/a.xml\\")',
    ])
      expect(() => parseRule(broken), broken).toThrow();
  });

  it('leaves the skip rule out without addresses, and says why', () => {
    const none = { ...input, monitors: [input.monitors[2]!] };
    expect(cloudflareRules(none).skip).toBeUndefined();
    expect(cloudflareRecipe(none)).toMatch(/the config gives no monitor an address/);
    expect(cloudflareRecipe(input)).toMatch(/kurses has no address in the config/);
  });
});

describe('ratefile edge nginx', () => {
  it('lists the monitors in a geo and a map, spares them the limit and sends the caching headers', () => {
    const text = nginxRecipe(input);
    expect(text).toContain('    162.19.29.225 1; # bestchange\n');
    expect(text).toContain('    2001:db8::/32 1; # exchangesumo\n');
    expect(text).toContain('    "~*kurses[.]com[.]ua[ ]bot[ ][\\"]x[\\"]" 1; # kurses\n');
    expect(text).toContain('location ~ "^([/]parserfile[.]xml|[/]reffile[.]xml|[/]rates[.]json)$" {');
    expect(text).toContain('    allow 46.4.58.77; # exchangesumo\n');
    expect(text).toContain('    add_header Cache-Control "no-cache" always;\n');
    expect(text).toContain('    add_header CDN-Cache-Control "max-age=30" always;\n');
    expect(text).toMatch(/limit_req_zone \$ratefile_limit_key zone=ratefile_exports:10m rate=6r\/m;/);
  });

  it('keeps braces balanced and every directive ended', () => {
    const code = nginxRecipe(input)
      .split('\n')
      .map((line) => line.replace(/#.*$/, '').trim())
      .filter(Boolean);
    let depth = 0;
    for (const line of code) {
      depth += (line.match(/\{/g) ?? []).length - (line.match(/\}/g) ?? []).length;
      expect(depth).toBeGreaterThanOrEqual(0);
      expect(line, line).toMatch(/[;{}]$/);
    }
    expect(depth).toBe(0);
  });
  it("carries every directive of deploy/nginx.conf's export location (the caching header from server.headers)", () => {
    const shipped = readFileSync(new URL('../../../../deploy/nginx.conf', import.meta.url), 'utf8');
    const location = shipped.slice(shipped.indexOf('    location ~ '));
    const directives = (text: string) =>
      text
        .split('\n')
        .map((line) => line.replace(/#.*$/, '').trim())
        .filter((line) => /^[a-z_]+ .*;$/.test(line) && !line.startsWith('location'));
    const recipe = nginxRecipe(input);
    const ours = new Set(directives(recipe.slice(recipe.indexOf('location ~ '))));
    const theirs = directives(location).filter((line) => !line.startsWith('add_header Cache-Control'));
    expect(theirs.length).toBeGreaterThan(15);
    expect(theirs.filter((line) => !ours.has(line))).toEqual([]);
    expect(ours).toContain('add_header Cache-Control "no-cache" always;');
  });
});
