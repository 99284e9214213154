/**
 * The signature check proper: RSA PKCS#1 v1.5 over the string to sign, SHA-1 for SignatureVersion
 * "1" and SHA-256 for "2". Pure and synchronous given the certificate's public key, so the
 * benchmark can time exactly this against a bare `crypto.verify`.
 */
import { type KeyObject, verify } from 'node:crypto';
import { AuthenticationError } from '../../../errors.js';
import { decodeBase64Strict } from '../../../request.js';
import { parseSnsEnvelope, type SnsEnvelope } from './envelope.js';
import { stringToSign } from './string-to-sign.js';

export type SnsSignatureVersion = '1' | '2';

const DIGEST: Readonly<Record<SnsSignatureVersion, string>> = { '1': 'sha1', '2': 'sha256' };

/**
 * `"1"` or `"2"`, and not below `minimum`: a topic moved to version 2 can refuse SHA-1 signatures,
 * which closes the downgrade of re-signing nothing but still accepting the weaker digest.
 */
export function parseSignatureVersion(value: string, minimum: SnsSignatureVersion = '1'): SnsSignatureVersion {
  if (value !== '1' && value !== '2') throw new AuthenticationError('unsupported SNS SignatureVersion');
  if (value < minimum) throw new AuthenticationError('SNS SignatureVersion is below the configured minimum');
  return value;
}

/** Throws AuthenticationError unless `envelope.Signature` verifies under `key`. */
export function verifySnsSignature(envelope: SnsEnvelope, key: KeyObject, minimum: SnsSignatureVersion = '1'): void {
  const version = parseSignatureVersion(envelope.SignatureVersion, minimum);
  if (key.type !== 'public' || key.asymmetricKeyType !== 'rsa') {
    throw new AuthenticationError('SNS signing certificate does not hold an RSA public key');
  }
  const signature = decodeBase64Strict(envelope.Signature, 'SNS Signature');
  let valid = false;
  try {
    valid = verify(DIGEST[version], Buffer.from(stringToSign(envelope), 'utf8'), key, signature);
  } catch {
    valid = false;
  }
  if (!valid) throw new AuthenticationError('SNS signature does not verify');
}

/**
 * Parse + shape + string-to-sign + verify for an SNS body, given the already-fetched key. This is the
 * whole per-request cryptographic cost; the gates around it (allowlist, URL, freshness) are string checks.
 */
export function verifySnsMessageWithKey(body: string, key: KeyObject, minimum: SnsSignatureVersion = '1'): SnsEnvelope {
  const envelope = parseSnsEnvelope(body);
  verifySnsSignature(envelope, key, minimum);
  return envelope;
}
