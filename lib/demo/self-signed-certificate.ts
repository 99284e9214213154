/**
 * A self-signed X.509 v3 certificate over a fresh RSA-2048 key, in pure node:crypto: what the local
 * demo pins as "the SNS signing certificate" and what tests sign SNS fixtures with. Node has no
 * certificate-creation API, so the TBSCertificate is DER-encoded by hand (see der.ts) and signed with
 * `crypto.sign`; `crypto.X509Certificate` parses the result like any other certificate.
 */
import { createPublicKey, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import {
  bitString,
  boolean,
  explicit,
  integer,
  nullValue,
  objectIdentifier,
  octetString,
  sequence,
  set,
  time,
  toPem,
  utf8String,
} from './der.js';

const OID = {
  sha256WithRsaEncryption: '1.2.840.113549.1.1.11',
  commonName: '2.5.4.3',
  organizationName: '2.5.4.10',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
} as const;

export interface SelfSignedCertificateOptions {
  /** Subject and issuer CN. */
  commonName?: string;
  /** Defaults to one hour ago, so a slightly slow clock elsewhere still sees it as valid. */
  notBefore?: Date;
  validityDays?: number;
  /** Reuse a key pair (RSA); a new RSA-2048 pair is generated otherwise. */
  privateKey?: KeyObject;
}

export interface SelfSignedCertificate {
  certificatePem: string;
  certificateDer: Buffer;
  privateKeyPem: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

export function createSelfSignedCertificate(options: SelfSignedCertificateOptions = {}): SelfSignedCertificate {
  const privateKey = options.privateKey ?? generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  if (privateKey.asymmetricKeyType !== 'rsa') throw new TypeError('self-signed certificates here are RSA only');
  const publicKey = createPublicKey(privateKey);

  const notBefore = options.notBefore ?? new Date(Date.now() - 60 * 60 * 1000);
  const notAfter = new Date(notBefore.getTime() + (options.validityDays ?? 365) * 24 * 60 * 60 * 1000);
  const name = distinguishedName(options.commonName ?? 'Ratchet demo SNS signing certificate');
  const algorithm = sequence(objectIdentifier(OID.sha256WithRsaEncryption), nullValue());

  const tbsCertificate = sequence(
    explicit(0, integer(2)), // version: v3
    integer(serialNumber()),
    algorithm,
    name, // issuer = subject: self-signed
    sequence(time(notBefore), time(notAfter)),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, sequence(basicConstraintsNotCa(), keyUsageDigitalSignature())),
  );
  const signature = sign('sha256', tbsCertificate, privateKey);
  const certificateDer = sequence(tbsCertificate, algorithm, bitString(signature));

  return {
    certificatePem: toPem('CERTIFICATE', certificateDer),
    certificateDer,
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    privateKey,
    publicKey,
  };
}

function distinguishedName(commonName: string): Buffer {
  return sequence(
    set(sequence(objectIdentifier(OID.organizationName), utf8String('Ratchet'))),
    set(sequence(objectIdentifier(OID.commonName), utf8String(commonName))),
  );
}

/** RFC 5280: positive, at most 20 octets, and unpredictable. */
function serialNumber(): Buffer {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x7f) | 0x01;
  return bytes;
}

function extension(oid: string, critical: boolean, value: Buffer): Buffer {
  return sequence(objectIdentifier(oid), ...(critical ? [boolean(true)] : []), octetString(value));
}

/** `cA` defaults to FALSE, and DER omits defaults: an empty SEQUENCE. */
function basicConstraintsNotCa(): Buffer {
  return extension(OID.basicConstraints, true, sequence());
}

/** digitalSignature is bit 0: one byte 0b1000_0000 with 7 unused bits. */
function keyUsageDigitalSignature(): Buffer {
  return extension(OID.keyUsage, true, bitString(Buffer.from([0x80]), 7));
}
