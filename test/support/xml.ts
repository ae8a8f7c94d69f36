// A real XML 1.0 parser (libxml2 compiled to WebAssembly) for checking that exports are well-formed.
import { validateXML } from 'xmllint-wasm';

/** Parse with libxml2; resolves with its error messages, empty when the document is well-formed XML 1.0. */
export async function xmlErrors(xml: string | Uint8Array, fileName = 'export.xml'): Promise<string[]> {
  // Asking for the reformatted document makes xmllint parse it fully without needing a schema.
  const result = await validateXML({ xml: [{ fileName, contents: xml }], normalization: 'format' });
  return result.errors.map((error) => error.rawMessage);
}
