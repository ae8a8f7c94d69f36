// The reserve sources by type.
import { fileReserves } from './file.js';
import { httpReserves } from './http.js';
import type { ReserveSourceDefinition } from '../../model/reserve-source.js';
import { sqlReserves } from './sql.js';

export const reserveDefinitions: readonly ReserveSourceDefinition[] = [
  fileReserves,
  httpReserves,
  sqlReserves,
] as unknown as ReserveSourceDefinition[];

export function reserveDefinition(type: string): ReserveSourceDefinition | undefined {
  return reserveDefinitions.find((definition) => definition.type === type);
}
