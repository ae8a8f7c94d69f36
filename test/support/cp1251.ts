// A windows-1251 encoder for test fixtures (CBR sends its XML in it; Node can decode it but not encode it):
// the reverse of Node's own windows-1251 decoder, byte by byte.
const decoder = new TextDecoder('windows-1251');
const table = new Map<string, number>();
for (let byte = 0; byte < 256; byte++) {
  const char = decoder.decode(Uint8Array.of(byte));
  if (char !== '\ufffd' && !table.has(char)) table.set(char, byte);
}

/** Text as windows-1251 bytes; throws on a character the code page lacks. */
export function encodeCp1251(text: string): Buffer {
  const bytes = Buffer.alloc(text.length);
  let length = 0;
  for (const char of text) {
    const byte = table.get(char);
    if (byte === undefined) throw new Error(`windows-1251 has no ${JSON.stringify(char)}`);
    bytes[length++] = byte;
  }
  return bytes.subarray(0, length);
}
