// Deterministic randomness for generated test cases, so a failure can be replayed from its seed.

export type Next = () => number;

/** mulberry32: a small seeded generator of numbers in [0, 1). */
export function random(seed: number): Next {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
