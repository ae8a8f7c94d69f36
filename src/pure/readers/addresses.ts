// Which monitor a fetch comes from: by user agent and/or client address (CIDR), the first monitor of the config
// that matches. Pure.
import { isIPv4 } from 'node:net';
import { agentMatcher, parseNetwork, type MonitorConfig } from '../../model/readers.js';

/** An IPv4-mapped IPv6 address (`::ffff:127.0.0.1`, how a dual-stack socket reports IPv4 clients) as IPv4. */
export function plainAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

/** An address as a number of its family's width; undefined for anything that is not an address. */
function addressBits(address: string): { value: bigint; family: 4 | 6 } | undefined {
  if (isIPv4(address)) {
    const value = address.split('.').reduce((sum, part) => (sum << 8n) | BigInt(Number(part)), 0n);
    return { value, family: 4 };
  }
  if (!address.includes(':') || !/^[0-9a-f:.]+$/i.test(address)) return undefined;
  // An embedded IPv4 tail (`::ffff:1.2.3.4`) as two groups.
  let text = address;
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const v4 = addressBits(tail[1]!);
    if (!v4) return undefined;
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

/** A test for "this address is in one of these networks". */
export function networkMatcher(networks: readonly string[]): (address: string) => boolean {
  const parsed = networks.flatMap((text) => {
    const network = parseNetwork(text);
    const base = network && addressBits(network.address);
    if (!network || !base) return [];
    const width = network.family === 4 ? 32n : 128n;
    const shift = width - BigInt(network.bits);
    return [{ family: network.family, shift, prefix: base.value >> shift }];
  });
  return (address) => {
    const bits = addressBits(plainAddress(address));
    return bits !== undefined && parsed.some((n) => n.family === bits.family && bits.value >> n.shift === n.prefix);
  };
}

/** The monitor a client is, by the config's patterns (both must match when both are given); undefined: none. */
export function monitorMatcher(
  monitors: readonly MonitorConfig[],
): (address: string, agent: string) => string | undefined {
  const tests = monitors.map((monitor) => {
    const agent = monitor.agent === undefined ? undefined : agentMatcher(monitor.agent);
    const address = monitor.addresses.length === 0 ? undefined : networkMatcher(monitor.addresses);
    return { name: monitor.name, agent, address };
  });
  return (address, agent) =>
    tests.find((test) => (!test.agent || test.agent(agent)) && (!test.address || test.address(address)))?.name;
}
