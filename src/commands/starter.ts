// The files `ratefile init` writes: a small commented config, the three export templates and two quotes files (two
// independent sources, each with two example quotes: the main pairs are their consensus).

export const starterConfig = `# ratefile.config.yaml: your exchanger's directions and how they are priced. Written by \`ratefile init\`.
#
# Check it: ratefile validate                    (the config and templates, nothing fetched)
# Try it:   ratefile build --dry-run             (prints the files, writes nothing)
# Run it:   ratefile start                       (builds every 30 s and serves them on 127.0.0.1:8080)
# Explain:  ratefile explain BTC SBERRUB         (how a rate comes about, or why it is held back)
# Run in this folder, or anywhere with --config PATH or RATEFILE_CONFIG=PATH.
#
# Amounts are decimal text in quotes ("12.5"), percentages have a % sign ("1.5%"), and unknown keys are
# errors, so a misspelt key fails loudly. What each key does: docs/configuration.md in ratefile's source;
# every key and its type: docs/config-reference.md, or \`ratefile schema\` (a JSON Schema, for editors).

# When the exports are rebuilt (cron with seconds): every 30 seconds. Config, templates and quotes are
# re-read at every build, so edits apply without a restart.
schedule: "*/30 * * * * *"

# The built-in server of \`ratefile start\`: it serves /parserfile.xml, /reffile.xml, /affiliatefile.xml,
# a dashboard at / and /healthz. 127.0.0.1: only this machine reaches it, right for nginx or a CDN in
# front (or \`ratefile start --no-serve\` when they serve the files). 0.0.0.0 lets the monitors poll it
# directly: open it only then, with the firewall letting the port in.
server:
  port: 8080
  host: 127.0.0.1

# Where the XML files are written, and where the export templates are (both relative to this file).
output: public
templates: templates

# Where market quotes come from: two sources, so that no single one can set a price. quotes.json is your back
# office's file, exchange.json a second, independent feed (in real use a venue read directly, e.g.
# \`venue: { type: binance, pairs: [BTC/USDT] }\`, or a P2P source for USDT/RUB: docs/sources.md). Each holds two
# EXAMPLE quotes, so the first build publishes something; replace them with real ones. Have your back office
# write its file atomically (temporary name, then rename):
#   { "quotes": [
#       { "pair": "BTC/USDT", "bid": "96850.10", "ask": "96852.40", "time": "2026-11-21T12:00:00Z" },
#       { "pair": "USDT/RUB", "bid": "93.45", "ask": "93.80" } ] }
# \`pair\` is BASE/QUOTE (one BASE costs bid..ask of QUOTE); without \`time\` a quote is as old as the file.
# maxAge: quotes older than this are not used, and the directions needing them are held back (the reason
# is logged, and shown by \`ratefile status\` and the dashboard). So the example quotes stop being
# published 5 minutes after \`ratefile init\`, and so would real ones if your back office stopped writing.
# \`touch quotes.json exchange.json\` renews quotes without a \`time\`; \`ratefile start\` logs when they expire.
sources:
  backoffice: { type: file, path: quotes.json, maxAge: 5m }
  exchange: { type: file, path: exchange.json, maxAge: 5m }

# Pairs you make yourself (docs/formulas.md). Each main pair is a consensus of both sources: the median of their
# quotes, and they must agree within 1% (spread). Why: one source gone wrong on its own (a price 100× off, a feed
# in kopecks, a frozen answer) then cannot set a rate: the pair is held back instead, with the reason in
# \`ratefile status\` and the dashboard (docs/pricing-and-guards.md, "What one broken source can and cannot do").
# With a third source (\`sources: [backoffice, exchange, p2p]\`) the odd one out is dropped and the pair still priced.
# \`ratefile validate\` lists the directions one source alone could set; here there are none.
rates:
  BTC/USDT: { sources: [backoffice, exchange], spread: 1% }
  USDT/RUB: { sources: [backoffice, exchange], spread: 1% }
  # A formula: a bare pair reads the pair made above, so BTC → SBERRUB is as safe as its two legs.
  BTC/RUB: "BTC/USDT * USDT/RUB"

# Currencies by the code monitors know (data/currency-codes.tsv in the package lists them).
#   precision      decimal places of amounts (default 8 for crypto, 2 otherwise)
#   ratePrecision  decimal places of a rate's side in this currency (default: precision)
#   reserve        the most a client can receive right now: published as <amount>, and it caps <maxamount>
currencies:
  BTC:       { precision: 8, reserve: "1.5" }
  USDTTRC20: { precision: 2, ratePrecision: 4, reserve: "25000" }
  SBERRUB:   { precision: 2, ratePrecision: 4, reserve: "2000000" }
  TCSBRUB:   { precision: 2, ratePrecision: 4, reserve: "1500000" }

# What every direction gets unless it sets its own value.
defaults:
  margin: "1.5%"    # against the client: rate = market x (1 - margin)

# What a client can exchange: \`from\` is what the client sends, \`to\` what the client receives. A list on
# either side makes one direction per pair. Limits are published in the from currency; "5000 RUB" is
# converted at each build. Labels (params): manual, juridical, verifying, cardverify, reg, otherin, otherout.
directions:
  - from: BTC
    to: USDTTRC20
    margin: "0.8%"
    min: "0.0005"
    tags: [ref]       # also published in reffile.xml

  - from: USDTTRC20
    to: BTC
    margin: "1%"
    min: "50"
    max: "20000"
    tags: [ref]

  - from: [BTC, USDTTRC20]
    to: SBERRUB
    margin: "1.2%"
    min: "5000 RUB"
    max: "1000000 RUB"
    params: [verifying]

  # Same asset (RUB) on both sides: no quote needed, the market rate is 1.
  - from: SBERRUB
    to: TCSBRUB
    margin: "0.5%"
    min: "1000"
    max: "300000"
`;

export const starterTemplates: Record<string, string> = {
  'parserfile.yaml': `# templates/parserfile.yaml renders parserfile.xml: the primary export, the URL you give the monitors.
# No \`include\`, so every direction that could be priced is in it.
# Keys (all optional): description, include, exclude, aliases, markup, url, format (classic, eref-1.1, json), file (\`ratefile schema --template\`).
description: Primary export for the monitors, with every direction.
`,
  'reffile.yaml': `# templates/reffile.yaml renders reffile.xml: a secondary export for a consumer that takes some directions.
description: Secondary export with the directions tagged \`ref\`.

# Only directions carrying at least one of these tags.
include:
  tags: [ref]

# Codes published in place of yours in this file only, e.g. for a consumer still on the old USDT codes:
# aliases:
#   USDTTRC20: USDTTRC
`,
  'affiliatefile.yaml': `# templates/affiliatefile.yaml renders affiliatefile.xml: rates for partners, with their markup and a link per item.
description: Partner rates with a 0.5% partner markup and a link per item.

# Leave out directions carrying any of these tags.
exclude:
  tags: [no-affiliate]

# Against the client, on top of each direction's rate; the result is rounded against the client again.
markup: "0.5%"

# A <url> per item: {from}, {to} (the published codes) and {city}. Put your own site here.
url: "https://exchanger.example/?cur_from={from}&cur_to={to}"
`,
};

/** Two example quotes without a time: they are as old as the file, so `maxAge` retires them 5 minutes after init. */
export const starterQuotes = `{
  "quotes": [
    { "pair": "BTC/USDT", "bid": "96850.10", "ask": "96852.40" },
    { "pair": "USDT/RUB", "bid": "93.45", "ask": "93.80" }
  ]
}
`;

/** The second source's example quotes: within the consensus's 1% of the first (docs/formulas.md). */
export const starterExchangeQuotes = `{
  "quotes": [
    { "pair": "BTC/USDT", "bid": "96840.50", "ask": "96861.00" },
    { "pair": "USDT/RUB", "bid": "93.40", "ask": "93.85" }
  ]
}
`;
