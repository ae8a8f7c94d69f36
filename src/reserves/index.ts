// The reserve sources by type. `sql` slots in here later.
import { fileReserves } from './file.js';
import { httpReserves } from './http.js';
import type { ReserveSourceDefinition } from './source.js';

export const reserveDefinitions: readonly ReserveSourceDefinition[] = [fileReserves, httpReserves] as unknown as ReserveSourceDefinition[];

export function reserveDefinition(type: string): ReserveSourceDefinition | undefined {
  return reserveDefinitions.find((definition) => definition.type === type);
}
