// Types of docs/generate.js for the tests that import it (the script itself is plain JavaScript run by node).
export declare function cliReference(
  run: (argv: readonly string[], overrides?: object) => Promise<number>,
): Promise<string>;
export declare function configReference(schema: object): string;
export declare function generateDocs(parts: {
  run: (argv: readonly string[], overrides?: object) => Promise<number>;
  configJsonSchema: () => object;
}): Promise<Record<string, string>>;
