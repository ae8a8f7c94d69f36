// `ratefile edge nginx`: the nginx lines that let the monitors in and keep caches honest, from the config. Two parts:
// the http { } context (a geo on the monitors' addresses, a map on their user agents, a rate limit that never counts
// a monitor) and a location for the export paths (the monitors always allowed, the limit, the caching headers of
// `server.headers`). Pure: the input in, the text out; test/nginx/edge.test.ts runs it through `nginx -t`.
import { agentOnly, monitorAddresses, type EdgeInput } from './input.js';

/** A value inside nginx double quotes: `\` and `"` escaped (nginx reads `\\` and `\"` inside quotes). */
const quoted = (text: string) => `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`;

/** A regular expression matching `text` literally, without backslashes: each special character in a class. */
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\/"'\s;#]/g, (c) => (c === ']' ? '\\]' : `[${c}]`));

/** A monitor's `agent:` as an nginx map regex (case-insensitive): `/…/` as written, else the text literally. */
function agentRegex(agent: string): string {
  const isRegex = agent.length > 2 && agent.startsWith('/') && agent.endsWith('/');
  return `~*${isRegex ? agent.slice(1, -1) : literal(agent)}`;
}

/** The export paths as alternatives of a regex (`[/]parserfile[.]xml|…`). */
const pathsAlternatives = (paths: readonly string[]) => paths.map(literal).join('|');

/** The http { } part: who is a monitor, and the rate limit that spares them. */
export function nginxHttpPart(input: EdgeInput): string[] {
  const addresses = monitorAddresses(input.monitors);
  const agents = agentOnly(input.monitors);
  const lines = [
    '# --- Part 1: in the http { } context (e.g. /etc/nginx/conf.d/ratefile-edge.conf) ---',
    '',
    "# The monitors' addresses (monitors: in the config): 1 for a monitor's robot.",
    'geo $ratefile_monitor {',
    '    default 0;',
    ...addresses.map(({ address, monitor }) => `    ${address} 1; # ${monitor}`),
    '}',
    '',
    '# Monitors known by their user agent only (no address in the config). A user agent can be forged: it only',
    '# spares them the rate limit below, never opens anything else.',
    'map $http_user_agent $ratefile_monitor_agent {',
    '    default 0;',
    ...agents.map((monitor) => `    ${quoted(agentRegex(monitor.agent!))} 1; # ${monitor.name}`),
    '}',
    '',
    "# The rate limit's key: the client's address, or empty for a monitor (an empty key is never counted).",
    'map "$ratefile_monitor$ratefile_monitor_agent" $ratefile_limit_key {',
    '    "00" $binary_remote_addr;',
    '    default "";',
    '}',
    `limit_req_zone $ratefile_limit_key zone=ratefile_exports:10m rate=${limitPerMinute(input.periodSeconds)}r/m;`,
  ];
  return lines;
}

/** Two fetches per schedule period for anyone who is no monitor, at least 6 a minute. */
const limitPerMinute = (periodSeconds: number) => Math.max(6, Math.ceil((2 * 60) / Math.max(1, periodSeconds)));

/** The server { } part: the location of the export paths, with everything deploy/nginx.conf gives the exports. */
export function nginxServerPart(input: EdgeInput): string[] {
  const addresses = monitorAddresses(input.monitors);
  const { cacheControl, cdnCacheControl } = input.headers;
  const paths = pathsAlternatives(input.paths);
  return [
    '# --- Part 2: in the server { } block that serves the exports, before any other location matching them ---',
    '# (regular-expression locations are tried in order; deploy/nginx.conf has one for every export name).',
    "# It keeps what deploy/nginx.conf's location gives the exports (test/nginx/edge.test.ts compares the two).",
    '',
    `location ~ ${quoted(`^(${paths})$`)} {`,
    '    # Only regular files, only GET and HEAD, only this one spelling of the path (locations match the',
    '    # normalized path: `//parserfile.xml` or `/%70arserfile.xml` would land here too).',
    '    try_files $uri =404;',
    '    if ($request_method !~ ^(GET|HEAD)$) {',
    '        return 405;',
    '    }',
    `    if ($request_uri !~ ${quoted(`^(${paths})([?]|$)`)}) {`,
    '        return 404;',
    '    }',
    '',
    '    # Monitors are never rate limited (Part 1); anyone else past the limit gets 429.',
    '    limit_req zone=ratefile_exports burst=10 nodelay;',
    '    limit_req_status 429;',
    '    # The monitors are let in even where the rest of the site is closed (deny all, a maintenance rule):',
    ...addresses.map(({ address, monitor }) => `    allow ${address}; # ${monitor}`),
    '    # deny all; # uncomment to serve the exports to the monitors only',
    '',
    '    # application/xml without a charset parameter, application/json, UTF-8 text/plain (as deploy/nginx.conf).',
    '    types {',
    '        application/xml xml;',
    '        application/json json;',
    '        text/plain txt;',
    '    }',
    '    default_type application/xml;',
    '    charset utf-8;',
    '    charset_types text/plain;',
    '',
    '    # The caching headers of server.headers: browsers and proxies ask again each time, a CDN keeps a copy',
    '    # no longer than this (RFC 9213), so the public copy is never older than one build.',
    `    add_header Cache-Control ${quoted(cacheControl)} always;`,
    `    add_header CDN-Cache-Control ${quoted(cdnCacheControl)} always;`,
    '    add_header X-Content-Type-Options "nosniff" always;',
    '    add_header Allow "GET, HEAD" always;',
    '    expires off;',
    '    etag on;',
    '    if_modified_since before;',
    '    # No byte ranges: two builds of one length within a second share an ETag, and If-Range would splice them.',
    '    max_ranges 0;',
    '',
    '    # gzip: the <name>.xml.gz the build writes beside each export, else compressed on the fly; Vary tells',
    '    # caches the two answers apart.',
    '    gzip_static on;',
    '    gzip on;',
    '    gzip_types application/xml application/json text/plain;',
    '    gzip_min_length 256;',
    '    gzip_proxied any;',
    '    gzip_vary on;',
    '',
    "    # If this nginx proxies ratefile's own server with a proxy_cache instead (proxy_pass), keep no copy",
    '    # longer than one build, and never one without asking when the origin says no-cache:',
    `    # proxy_cache_valid 200 ${input.periodSeconds}s;`,
    '    # proxy_cache_revalidate on;',
    '    # and never `proxy_ignore_headers Cache-Control Expires;` for these paths.',
    '}',
  ];
}

/** The whole recipe: a header, Part 1, Part 2. */
export function nginxRecipe(input: EdgeInput): string {
  const monitors = input.monitors.map((monitor) => monitor.name).join(', ') || 'none';
  return `${[
    `# ratefile edge nginx: generated from ${input.configFile} (monitors: ${monitors}; exports: ${input.paths.join(' ')}).`,
    '# Generate it again after changing monitors:, the exports or server.headers.',
    '',
    ...nginxHttpPart(input),
    '',
    ...nginxServerPart(input),
  ].join('\n')}\n`;
}
