// Layers of src/, bottom to top; a module imports only from its own layer or the ones below (AGENTS.md "Layering").
// Type-only imports count (tsPreCompilationDeps): a type is a dependency like any other.
const BASE = '^src/((decimal|errors|secrets|hours|files|log|pipes|folders|codes|words|freeze|own-string)[.]ts|config/(fields|problems|aliases|defaults|yaml)[.]ts)$';
const MODEL = '^src/((model|priced)[.]ts|exports/(formats|items)[.]ts|monitors/profile[.]ts|alerts/config[.]ts|ha/config[.]ts|readers/config[.]ts|sources/source[.]ts|reserves/source[.]ts)$';
const PURE =
  '^src/((guards|switches|health|status|report|cycle-lines|tally|freshness)[.]ts|ha/(role|fingerprint|repeats)[.]ts|pricing/|reserves/(apply|entry)[.]ts|readers/(fetches|addresses|combined|watch|view)[.]ts|sources/(values|syntax|options|json-bounds|retry-after|http-answer)[.]ts|bestchange/|check/|probe/(classify|pages|rates|summary|report)[.]ts|compete/(?!config[.]ts$)|exports/(?!template[.]ts$))';
const IO =
  '^src/((quotes|quote-cache|quote-feeds|source-ask|source-options|live-codes|compressions|publish|state|state-files|war-state|listing-state|build|cycle)[.]ts|config/(load|cross-check|normalize|schema|reload|tiers|shared-values)[.]ts|compete/config[.]ts|exports/template[.]ts|monitors/load[.]ts|probe/(fetch|run)[.]ts|readers/(store|nginx-log)[.]ts|sources/|reserves/|hosting/|ha/(lock|session|postgres|mysql|standby|seat|placed)[.]ts)';
const SERVICE = '^src/((service|service-build|service-feeds|server|listeners|schedule|source-watch|last-good-config|metrics|reasons|build-log)[.]ts|readers/tracker[.]ts|dashboard/|alerts/|ha/serve[.]ts)';
const COMMANDS = '^src/(cli[.]ts|commands/)';

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'No import circles, type imports included.', from: {}, to: { circular: true } },
    {
      name: 'layer-unknown',
      severity: 'error',
      comment: 'Every module of src/ belongs to a layer: add a new one to its layer in .dependency-cruiser.cjs.',
      from: { path: '^src/', pathNot: [BASE, MODEL, PURE, IO, SERVICE, COMMANDS] },
      to: {},
    },
    { name: 'base-imports-base', severity: 'error', comment: 'Base helpers know nothing of the model or anything above.', from: { path: BASE }, to: { path: '^src/', pathNot: BASE } },
    { name: 'model-imports-model', severity: 'error', comment: 'The model imports only base helpers and itself.', from: { path: MODEL, pathNot: BASE }, to: { path: '^src/', pathNot: [BASE, MODEL] } },
    { name: 'pure-no-io', severity: 'error', comment: 'Pure steps never import I/O, the service or the commands.', from: { path: PURE, pathNot: [BASE, MODEL] }, to: { path: [IO, SERVICE, COMMANDS], pathNot: [BASE, MODEL, PURE] } },
    { name: 'io-no-service', severity: 'error', comment: 'I/O never imports the service or the commands.', from: { path: IO, pathNot: [BASE, MODEL, PURE] }, to: { path: [SERVICE, COMMANDS], pathNot: [BASE, MODEL, PURE, IO] } },
    { name: 'service-no-commands', severity: 'error', comment: 'The service never imports the commands.', from: { path: SERVICE, pathNot: [BASE, MODEL, PURE, IO] }, to: { path: COMMANDS } },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|test|node_modules)/' },
  },
};
