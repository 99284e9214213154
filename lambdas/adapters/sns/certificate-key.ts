/**
 * Certificate bytes → the public key we verify with. Parsed once per certificate and cached as a
 * KeyObject by the sources, so a warm Lambda never re-parses PEM on the hot path.
 */
import { type KeyObject, X509Certificate } from 'node:crypto';
import { AuthenticationError } from '../../core/errors.js';

export function publicKeyFromCertificate(pem: Buffer | string): KeyObject {
  let key: KeyObject;
  try {
    key = new X509Certificate(pem).publicKey;
  } catch (error) {
    throw new AuthenticationError('SNS signing certificate is not a valid X.509 certificate', { cause: error });
  }
  // SNS signs with RSA (SHA1withRSA / SHA256withRSA); any other key type cannot be a real SNS certificate.
  if (key.asymmetricKeyType !== 'rsa')
    throw new AuthenticationError('SNS signing certificate is not an RSA certificate');
  return key;
}
