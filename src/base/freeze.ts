// Deep freezing of the loaded config: caches keyed by its objects' identity (WeakMaps) stay right only while
// nothing changes those objects, so a write must fail where it is made instead of going stale somewhere else.

/** The type with its own fields writable: for building a model object field by field before it is frozen. */
export type Writable<T> = { -readonly [K in keyof T]: T[K] };

function refuseWrite(this: Map<unknown, unknown> | Set<unknown>): never {
  throw new TypeError(`Cannot change a frozen ${this instanceof Map ? 'Map' : 'Set'}`);
}

const writeMethods = { Map: ['set', 'delete', 'clear'], Set: ['add', 'delete', 'clear'] } as const;

/**
 * Freeze `value` and everything reachable from it that it owns: plain objects, arrays, Maps and Sets (whose writing
 * methods are replaced on the instance by one that throws, as `Object.freeze` does not stop `Map.set`). Instances
 * of other classes are left alone: they may be shared with a library or change themselves (Decimal is immutable
 * by its API and its fields are `readonly` in its types). Each object is visited once, so shared values cost once.
 */
export function deepFreeze<T>(value: T): T {
  const seen = new Set<object>();
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item !== 'object' || item === null || seen.has(item)) continue;
    seen.add(item);
    if (Array.isArray(item)) {
      for (const element of item) if (typeof element === 'object' && element !== null) pending.push(element);
    } else if (item instanceof Map || item instanceof Set) {
      const kind = item instanceof Map ? 'Map' : 'Set';
      for (const name of writeMethods[kind]) Object.defineProperty(item, name, { value: refuseWrite });
      if (item instanceof Map) for (const [key, entry] of item) pending.push(key, entry);
      else for (const entry of item) pending.push(entry);
    } else {
      const prototype: unknown = Object.getPrototypeOf(item);
      if (prototype !== Object.prototype && prototype !== null) continue;
      for (const key of Object.keys(item)) {
        const field: unknown = (item as Record<string, unknown>)[key];
        if (typeof field === 'object' && field !== null) pending.push(field);
      }
    }
    Object.freeze(item);
  }
  return value;
}
