// test/unit/ holds the quick tests (`npm run test:quick`): no child process, no listening socket. This setup file
// makes either an immediate, named failure, so a test that needs one is moved to test/integration/ rather than
// slowing the minute-long loop down.
import { createRequire, syncBuiltinESMExports } from 'node:module';

// The modules' CommonJS objects, which `import { spawn } from 'node:child_process'` reads once they are synced.
const require = createRequire(import.meta.url);
const childProcess = require('node:child_process') as Record<string, unknown>;
const net = require('node:net') as typeof import('node:net');

const refuse = (what: string) => () => {
  throw new Error(`test/unit/ starts no ${what}: this test belongs in test/integration/`);
};
for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork']) {
  childProcess[name] = refuse(`child process (${name})`);
}
net.Server.prototype.listen = refuse('listening socket') as typeof net.Server.prototype.listen;
syncBuiltinESMExports();
