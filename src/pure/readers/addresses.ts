// Which monitor a fetch comes from: by user agent and/or client address (CIDR), the first monitor of the config
// that matches. Pure.
import { addressBits } from '../../base/addresses.js';
import { agentMatcher, parseNetwork, type MonitorConfig } from '../../model/readers.js';

/** An IPv4-mapped IPv6 address (`::ffff:127.0.0.1`, how a dual-stack socket reports IPv4 clients) as IPv4. */
export function plainAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
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
