// IP addresses read without node:net (src/base/addresses.ts): the same family as node:net's isIP for every kind of
// text the config and the access log give, zone ids aside.
import { isIP } from 'node:net';
import { describe, expect, it } from 'vitest';
import { addressBits, ipFamily } from '../../../src/base/addresses.js';

describe('ipFamily', () => {
  it('agrees with node:net isIP', () => {
    const texts = [
      '46.4.58.77',
      '0.0.0.0',
      '255.255.255.255',
      '256.1.1.1',
      '01.2.3.4',
      '1.2.3',
      '1.2.3.4.5',
      ' 1.2.3.4',
      '::',
      '::1',
      '2001:db8::1',
      '2001:DB8:0:0:0:0:0:1',
      '::ffff:127.0.0.1',
      '::ffff:300.0.0.1',
      '1:2:3:4:5:6:7:8',
      '1:2:3:4:5:6:7:8:9',
      '1::2::3',
      '12345::',
      'fe80::',
      'g::1',
      '',
      'localhost',
    ];
    expect(texts.map(ipFamily)).toEqual(texts.map(isIP));
  });

  it('reads an address as its number', () => {
    expect(addressBits('10.0.0.1')).toEqual({ value: 0x0a000001n, family: 4 });
    expect(addressBits('::ffff:1.2.3.4')).toEqual({ value: 0xffff01020304n, family: 6 });
  });
});
