import { describe, expect, it } from 'vitest';
import { xmlErrors } from './xml.js';

describe('xmlErrors (libxml2)', () => {
  it('accepts a well-formed document', async () => {
    expect(await xmlErrors('<?xml version="1.0" encoding="UTF-8"?>\n<rates></rates>\n')).toEqual([]);
  });
  it('rejects a broken one', async () => {
    expect((await xmlErrors('<rates><item></rates>')).length).toBeGreaterThan(0);
  });
});
