// What a compete cache keeps per object (a rule, a field's core, a market): its answers by key. Pure.
// Nearly every such object is asked under one key only (a rule, core or market serves one direction's codes and
// precisions), and a Map of its own per object would be most of what the cache holds: thousands of competing
// directions, a few hundred bytes each. So one answer is kept with its key, and a Map only from a second key on.

/** One object's answers: the only one with its key, or a Map once there are more. */
export type Keyed<V> = { readonly key: string; readonly value: V } | Map<string, V>;

export function keyedGet<V>(slot: Keyed<V> | undefined, key: string): V | undefined {
  if (slot === undefined) return undefined;
  if (slot instanceof Map) return slot.get(key);
  return slot.key === key ? slot.value : undefined;
}

/** The slot with `value` under `key`: a new one-answer slot, or a Map holding both answers. */
export function keyedSet<V>(slot: Keyed<V> | undefined, key: string, value: V): Keyed<V> {
  if (slot === undefined || (!(slot instanceof Map) && slot.key === key)) return { key, value };
  if (slot instanceof Map) return slot.set(key, value);
  return new Map([
    [slot.key, slot.value],
    [key, value],
  ]);
}

/** A cache by object, then key: the value under `key` for `owner`, made by `make` the first time. */
export function keyedCache<K extends object, V>(): (owner: K, key: string, make: () => V) => V {
  const slots = new WeakMap<K, Keyed<V>>();
  return (owner, key, make) => {
    const slot = slots.get(owner);
    const known = keyedGet(slot, key);
    if (known !== undefined) return known;
    const value = make();
    slots.set(owner, keyedSet(slot, key, value));
    return value;
  };
}
