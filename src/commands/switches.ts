// What `ratefile pause` and `ratefile resume` share: the direction (and city) the operator named, checked against
// the config. Each pause is a file in the state folder, like accept and maintenance, so the CLI and the running
// service never race.
import { RatefileError, quoteValue } from '../base/errors.js';
import type { Config, Direction } from '../model/config.js';

function findDirection(config: Config, from: string, to: string, shown: string): Direction {
  const id = `${from}>${to}`;
  const direction = config.directions.find((d) => d.id === id);
  if (!direction) throw new RatefileError('E_USAGE', `no direction ${quoteValue(id)} in ${shown}`);
  return direction;
}

function checkCity(direction: Direction, name: string, city: string | undefined): void {
  if (city === undefined || direction.cities.includes(city)) return;
  const cities = direction.cities.length > 0 ? `its cities are ${direction.cities.join(', ')}` : 'it has no cities';
  throw new RatefileError('E_USAGE', `${name} has no city ${quoteValue(city)}: ${cities}`);
}

/**
 * The direction FROM>TO of the config and, with `--city`, that city of it, or a usage error; `what` names them for
 * the operator ("BTC → SBERRUB in MSK").
 */
export async function switchedDirection(
  config: Config,
  shownFile: string,
  codes: { from: string; to: string; city: string | undefined },
): Promise<{ direction: Direction; what: string }> {
  const direction = findDirection(config, codes.from, codes.to, shownFile);
  // Loaded with the action, as decimal.js behind it: `--help` stays light (test/integration/cli/startup.test.ts).
  const { directionName } = await import('../base/words.js');
  const name = directionName(direction.from.code, direction.to.code);
  checkCity(direction, name, codes.city);
  return { direction, what: `${name}${codes.city === undefined ? '' : ` in ${codes.city}`}` };
}
