import { describe, expect, it } from 'vitest';
import { keyedCache, keyedGet, keyedSet } from '../../../../src/pure/compete/keyed.js';

describe('keyed slots', () => {
  it('keep one answer without a Map, and every answer once a second key comes', () => {
    const one = keyedSet(undefined, 'a', 1);
    expect(one).not.toBeInstanceOf(Map);
    expect([keyedGet(one, 'a'), keyedGet(one, 'b')]).toEqual([1, undefined]);
    const replaced = keyedSet(one, 'a', 2);
    expect(replaced).not.toBeInstanceOf(Map);
    expect(keyedGet(replaced, 'a')).toBe(2);
    const two = keyedSet(replaced, 'b', 3);
    expect(two).toBeInstanceOf(Map);
    expect([keyedGet(two, 'a'), keyedGet(two, 'b')]).toEqual([2, 3]);
    expect([keyedGet(keyedSet(two, 'c', 4), 'c'), keyedGet(two, 'a')]).toEqual([4, 2]);
  });

  it('make a value once per owner and key, null included', () => {
    const cache = keyedCache<object, number | null>();
    const [owner, other] = [{}, {}];
    let made = 0;
    const make = (value: number | null) => () => (made++, value);
    expect(cache(owner, 'k', make(null))).toBeNull();
    expect(cache(owner, 'k', make(5))).toBeNull();
    expect(cache(owner, 'j', make(6))).toBe(6);
    expect(cache(owner, 'k', make(7))).toBeNull();
    expect(cache(other, 'k', make(8))).toBe(8);
    expect(made).toBe(3);
  });
});
