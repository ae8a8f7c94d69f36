// The operator's Ed25519 key (`archive.key`): read from an environment variable or a file, registered as a secret
// at once so no message or log line can show it, and used through node:crypto only. It signs the archive's records
// and the quotes (`/quote`, `ratefile quote`); its public half is what a third party verifies with.
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign, verify } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { RatefileError, quoteValue } from '../../base/errors.js';
import { registerSecret } from '../../base/secrets.js';
import type { ArchiveKeySource } from '../../model/archive.js';

/** PKCS #8 DER of an Ed25519 key before its 32-byte seed, and SPKI DER before its 32-byte public key (RFC 8410). */
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export interface SigningKey {
  /** The public key as a third party takes it: base64 of its 32 bytes. */
  publicKey: string;
  sign(message: string): string;
}

/** The key from its text: a PEM private key (`openssl genpkey -algorithm ed25519`), or its 32-byte seed in hex or base64. */
export function signingKeyOf(text: string, where: string): SigningKey {
  const trimmed = text.trim();
  registerSecret(trimmed);
  let key: KeyObject;
  try {
    if (trimmed.startsWith('-----BEGIN')) {
      registerSecret(trimmed.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''));
      key = createPrivateKey(trimmed);
    } else {
      const seed = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
      if (seed.length !== 32) throw new Error('not 32 bytes');
      key = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
    }
  } catch {
    throw new RatefileError(
      'E_CONFIG',
      `archive.key: ${where}: expected an Ed25519 private key (PEM, or its 32-byte seed in hex or base64)`,
    );
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw new RatefileError('E_CONFIG', `archive.key: ${where}: expected an Ed25519 key, got ${key.asymmetricKeyType}`);
  const publicKey = rawPublicKey(createPublicKey(key));
  return { publicKey, sign: (message) => sign(null, Buffer.from(message, 'utf8'), key).toString('base64') };
}

const rawPublicKey = (key: KeyObject) =>
  (key.export({ format: 'der', type: 'spki' }) as Buffer).subarray(SPKI_PREFIX.length).toString('base64');

/** The configured key, or undefined when `archive.key` is not set; a missing variable or file is a config error. */
export async function loadSigningKey(
  source: ArchiveKeySource | undefined,
  configDir: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<SigningKey | undefined> {
  if (!source) return undefined;
  if ('env' in source) {
    const value = env[source.env];
    if (value === undefined || value.trim() === '')
      throw new RatefileError('E_CONFIG', `archive.key: environment variable ${source.env} is not set`);
    return signingKeyOf(value, `environment variable ${source.env}`);
  }
  const path = resolve(configDir, source.file);
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new RatefileError('E_CONFIG', `archive.key: cannot read ${quoteValue(path)}: ${error.code ?? error.message}`);
  });
  return signingKeyOf(text, quoteValue(path));
}

/** Whether `signature` (base64) is `publicKey`'s (base64 of 32 bytes) over `message`. */
export function verifySignature(publicKey: string, message: string, signature: string): boolean {
  try {
    const raw = Buffer.from(publicKey, 'base64');
    if (raw.length !== 32) return false;
    const key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
    return verify(null, Buffer.from(message, 'utf8'), key, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}

/** A new key: its PEM (for the operator's file or variable) and its public half. */
export function newSigningKey(): { pem: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { pem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(), publicKey: rawPublicKey(publicKey) };
}
