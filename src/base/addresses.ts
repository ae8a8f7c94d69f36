// IP addresses read as text, with no socket: an IPv4 or IPv6 address as the number it is, and its family. What the
// `monitors:` block's networks (src/model/readers.ts) and the fetch attribution (src/pure/readers/addresses.ts) read;
// node:net's isIP would do the same, but the model and the pure steps import none of Node's I/O modules.

const octet = String.raw`(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)`;
const ipv4 = new RegExp(String.raw`^${octet}(?:\.${octet}){3}$`);

/** An address as a number of its family's width (IPv4 32 bits, IPv6 128); undefined for anything that is not one. */
export function addressBits(address: string): { value: bigint; family: 4 | 6 } | undefined {
  if (ipv4.test(address)) {
    const value = address.split('.').reduce((sum, part) => (sum << 8n) | BigInt(Number(part)), 0n);
    return { value, family: 4 };
  }
  if (!address.includes(':') || !/^[0-9a-f:.]+$/i.test(address)) return undefined;
  // An embedded IPv4 tail (`::ffff:1.2.3.4`) as two groups.
  let text = address;
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const v4 = addressBits(tail[1]!);
    if (v4?.family !== 4) return undefined;
    text = `${text.slice(0, -tail[1]!.length)}${(v4.value >> 16n).toString(16)}:${(v4.value & 0xffffn).toString(16)}`;
  }
  const [head = '', rest, ...more] = text.split('::');
  if (more.length > 0) return undefined;
  const left = head === '' ? [] : head.split(':');
  const right = rest === undefined || rest === '' ? [] : rest.split(':');
  const missing = 8 - left.length - right.length;
  if (rest === undefined ? missing !== 0 : missing < 1) return undefined;
  const groups = [...left, ...Array<string>(rest === undefined ? 0 : missing).fill('0'), ...right];
  if (groups.some((group) => !/^[0-9a-f]{1,4}$/i.test(group))) return undefined;
  return { value: groups.reduce((sum, group) => (sum << 16n) | BigInt(Number.parseInt(group, 16)), 0n), family: 6 };
}

/** 4 or 6 for an IPv4 or IPv6 address, 0 for anything else (node:net's isIP, without its zone ids). */
export const ipFamily = (address: string): 0 | 4 | 6 => addressBits(address)?.family ?? 0;
