// Memo: values by an object (held weakly) and a key, for the caches of pricing. Pure.

/**
 * Values by an object (held weakly) and a key. Nearly every object here gets one key (a conversion one margin, a
 * rate one pair of precisions, a published form one set of terms), so the first is kept inline and a Map is made
 * only for a second: a build makes thousands of these, and fewer objects mean less garbage to collect.
 */
export class Memo<O extends object, K, V> {
  private readonly slots = new WeakMap<O, { key: K; value: V; more?: Map<K, V> }>();

  get(owner: O, key: K): V | undefined {
    const slot = this.slots.get(owner);
    if (slot === undefined) return undefined;
    return slot.key === key ? slot.value : slot.more?.get(key);
  }

  set(owner: O, key: K, value: V): V {
    const slot = this.slots.get(owner);
    if (slot === undefined) this.slots.set(owner, { key, value });
    else (slot.more ??= new Map()).set(key, value);
    return value;
  }
}
