// Layers of src/, bottom to top; a module imports only from its own layer or the ones below (AGENTS.md "Layering").
// Type-only imports count (tsPreCompilationDeps): a type is a dependency like any other.
// A module's layer is its top folder under src/: base/, model/, pure/, io/, service/, commands/ (with cli.ts).
const BASE = '^src/base/';
const MODEL = '^src/model/';
const PURE = '^src/pure/';
const IO = '^src/io/';
const SERVICE = '^src/service/';
const COMMANDS = '^src/(cli[.]ts$|commands/)';
// Node's modules that reach the disk, the network or other processes: none in the model or the pure steps ("no I/O").
// The global `fetch` is no import: test/unit/repo/layers.test.ts refuses a call of it there.
const NODE_IO = '^(node:)?(fs|fs/promises|net|http|https|http2|child_process|dgram|dns|dns/promises|tls|cluster|worker_threads|inspector)$';

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'No import circles, type imports included.', from: {}, to: { circular: true } },
    {
      name: 'layer-unknown',
      severity: 'error',
      comment: 'Every module of src/ sits in a layer folder: src/base, model, pure, io, service or commands (src/cli.ts the entry).',
      from: { path: '^src/', pathNot: [BASE, MODEL, PURE, IO, SERVICE, COMMANDS] },
      to: {},
    },
    { name: 'base-imports-base', severity: 'error', comment: 'Base helpers know nothing of the model or anything above.', from: { path: BASE }, to: { path: '^src/', pathNot: BASE } },
    { name: 'model-imports-model', severity: 'error', comment: 'The model imports only base helpers and itself.', from: { path: MODEL, pathNot: BASE }, to: { path: '^src/', pathNot: [BASE, MODEL] } },
    { name: 'pure-no-io', severity: 'error', comment: 'Pure steps never import I/O, the service or the commands.', from: { path: PURE, pathNot: [BASE, MODEL] }, to: { path: [IO, SERVICE, COMMANDS], pathNot: [BASE, MODEL, PURE] } },
    { name: 'pure-and-model-no-node-io', severity: 'error', comment: "The model and the pure steps import none of Node's I/O modules (node:fs, node:net, node:http(s), node:child_process…): reading and fetching live in src/io/.", from: { path: [PURE, MODEL] }, to: { dependencyTypes: ['core'], path: NODE_IO } },
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
