// What ratefile's requests say about themselves (src/base/requests.ts): the User-Agent `ratefile/<version>` and the
// host and port a message names, never the URL's credentials, path or query.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { defaultUserAgent, hostAndPort } from '../../../src/base/requests.js';

describe('requests', () => {
  it('say ratefile/<version> of package.json', () => {
    const { version } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(defaultUserAgent()).toBe(`ratefile/${version}`);
  });

  it('are named by host and port, the default port written out, without userinfo, path or query', () => {
    expect(hostAndPort('https://api.binance.com/api/v3/ticker?symbols=x')).toBe('api.binance.com:443');
    expect(hostAndPort('http://office.local/reserves')).toBe('office.local:80');
    expect(hostAndPort(new URL('http://user:s3cret@127.0.0.1:9999/r?token=t0k3n'))).toBe('127.0.0.1:9999');
    expect(hostAndPort('http://[::1]:8080/')).toBe('[::1]:8080');
    expect(hostAndPort('not a url')).toBe('an unreadable address');
  });
});
