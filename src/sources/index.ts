// Registry of rate sources: each lives in its own module; add new ones to this list.
import { fileSource } from './file.js';
import type { SourceDefinition } from './source.js';

export const sourceDefinitions: readonly SourceDefinition<{ type: string }>[] = [fileSource as unknown as SourceDefinition<{ type: string }>];

export function sourceDefinition(type: string): SourceDefinition<{ type: string }> | undefined {
  return sourceDefinitions.find((definition) => definition.type === type);
}
