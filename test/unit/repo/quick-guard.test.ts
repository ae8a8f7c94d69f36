// The unit project's guard (test/support/quick-guard.ts): a quick test that starts a process or listens on a socket
// fails at once, naming the folder it belongs in, whichever way the module was imported.
import * as childProcess from 'node:child_process';
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';

describe('test/unit/ guard', () => {
  it('refuses a child process, by named import and through the namespace', () => {
    expect(() => execFile(process.execPath, ['--version'])).toThrow(/belongs in test\/integration\//);
    expect(() => childProcess.spawnSync(process.execPath, ['--version'])).toThrow(/child process \(spawnSync\)/);
  });

  it('refuses a listening socket', () => {
    const server = createServer();
    expect(() => server.listen(0, '127.0.0.1')).toThrow(/listening socket/);
    server.close();
  });
});
