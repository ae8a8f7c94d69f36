// The classic writer's byte sink: the bytes are exactly the UTF-8 of the text written, whether the memory grows in
// place (V8's resizable ArrayBuffer, unmapped whole when dropped) or, for a small file, where that cannot be had or
// is outgrown, in buffers from malloc.
import { describe, expect, it } from 'vitest';
import { ByteSink, smallFileBytes, type GrowableMemory } from '../../../../src/pure/exports/xml-text.js';

/** Texts of varied sizes and characters (one to four UTF-8 bytes each), from a fixed seed. */
function texts(seed: number, count: number): string[] {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
  const alphabet = ['a', '<', '\n', 'é', 'Ж', '€', '₿', '𝄞'];
  return Array.from({ length: count }, () =>
    Array.from({ length: Math.floor(next() * 3000) }, () => alphabet[Math.floor(next() * alphabet.length)]).join(''),
  );
}

const resizable = (bytes: Buffer) => (bytes.buffer as ArrayBuffer & { resizable?: boolean }).resizable === true;

/** Write `parts` with a `done` share that first under-, then over-predicts the file's size. */
function written(sink: ByteSink, parts: readonly string[]): Buffer {
  parts.forEach((text, k) =>
    sink.write(text, Math.min(1, ((k + 1) / parts.length) * (k < parts.length / 2 ? 4 : 0.5))),
  );
  return sink.bytes();
}

describe('ByteSink', () => {
  const parts = texts(7, 200);
  const expected = Buffer.from(parts.join(''), 'utf8');

  it('moves a file past the small size into growable memory, which ends exactly at the bytes written', () => {
    expect(expected.length).toBeGreaterThan(64 * 1024);
    const bytes = written(new ByteSink(undefined, 64 * 1024), parts);
    expect(bytes.equals(expected)).toBe(true);
    expect(resizable(bytes)).toBe(true);
    expect(bytes.buffer.byteLength).toBe(expected.length);
  });

  it('keeps a file under the small size (1 MiB by default) in a buffer from malloc', () => {
    expect(expected.length).toBeLessThan(smallFileBytes);
    // Shares of the work that predict the size well (an over-prediction past the small size reserves the memory).
    const sink = new ByteSink();
    parts.forEach((text, k) => sink.write(text, (k + 1) / parts.length));
    const bytes = sink.bytes();
    expect(bytes.equals(expected)).toBe(true);
    expect(resizable(bytes)).toBe(false);
  });

  it('writes the same bytes into buffers from malloc where no growable memory can be had', () => {
    const bytes = written(new ByteSink(() => undefined), parts);
    expect(bytes.equals(expected)).toBe(true);
    expect(resizable(bytes)).toBe(false);
  });

  it('moves to buffers from malloc, bytes intact, once the file outgrows the memory reserved', () => {
    const small = new (ArrayBuffer as unknown as new (n: number, o: { maxByteLength: number }) => GrowableMemory)(0, {
      maxByteLength: 4096,
    });
    const bytes = written(new ByteSink(() => small, 0), parts);
    expect(bytes.equals(expected)).toBe(true);
    expect(resizable(bytes)).toBe(false);
  });
});
