/** The pure node:crypto self-signed certificate and its tiny DER encoder. */
import { generateKeyPairSync, sign, verify, X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { integer, objectIdentifier, time, tlv } from '../../../lib/demo/der.js';
import { createSelfSignedCertificate } from '../../../lib/demo/self-signed-certificate.js';
import { signingCertificate } from './fixtures.js';

describe('createSelfSignedCertificate', () => {
  it('produces a v3 certificate that crypto.X509Certificate parses', () => {
    const cert = new X509Certificate(signingCertificate().certificatePem);
    expect(cert.subject).toContain('CN=Ratchet demo SNS signing certificate');
    expect(cert.issuer).toBe(cert.subject);
    expect(cert.ca).toBe(false);
    expect(cert.publicKey.asymmetricKeyType).toBe('rsa');
    expect(cert.publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(cert.toString()).toBe(signingCertificate().certificatePem);
    // version byte: [0] EXPLICIT INTEGER 2 right after the TBSCertificate header
    expect(signingCertificate().certificateDer.includes(Buffer.from([0xa0, 0x03, 0x02, 0x01, 0x02]))).toBe(true);
  });

  it('is signed by its own key (self-signature verifies, a stranger key does not)', () => {
    const { certificatePem, publicKey } = signingCertificate();
    const cert = new X509Certificate(certificatePem);
    expect(cert.verify(publicKey)).toBe(true);
    expect(cert.verify(generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey)).toBe(false);
  });

  it('holds the public key of the returned private key', () => {
    const { certificatePem, privateKey, privateKeyPem } = signingCertificate();
    const data = Buffer.from('sns');
    const signature = sign('sha256', data, privateKeyPem);
    expect(verify('sha256', data, new X509Certificate(certificatePem).publicKey, signature)).toBe(true);
    expect(privateKey.asymmetricKeyType).toBe('rsa');
  });

  it('is valid now and for the requested number of days', () => {
    const notBefore = new Date('2030-01-01T00:00:00Z');
    const { certificatePem } = createSelfSignedCertificate({
      notBefore,
      validityDays: 10,
      commonName: 'custom',
      privateKey: signingCertificate().privateKey,
    });
    const cert = new X509Certificate(certificatePem);
    expect(new Date(cert.validFrom).toISOString()).toBe('2030-01-01T00:00:00.000Z');
    expect(new Date(cert.validTo).toISOString()).toBe('2030-01-11T00:00:00.000Z');
    expect(cert.subject).toContain('CN=custom');
    const fresh = new X509Certificate(signingCertificate().certificatePem);
    expect(Date.parse(fresh.validFrom)).toBeLessThanOrEqual(Date.now());
    expect(Date.parse(fresh.validTo)).toBeGreaterThan(Date.now());
  });

  it('uses a fresh positive serial number each time', () => {
    const key = signingCertificate().privateKey;
    const a = new X509Certificate(createSelfSignedCertificate({ privateKey: key }).certificatePem).serialNumber;
    const b = new X509Certificate(createSelfSignedCertificate({ privateKey: key }).certificatePem).serialNumber;
    expect(a).not.toBe(b);
    expect(parseInt(a[0]!, 16)).toBeLessThan(8);
  });

  it('refuses non-RSA keys', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    expect(() => createSelfSignedCertificate({ privateKey })).toThrow(/RSA/);
  });
});

describe('DER encoder', () => {
  it('encodes short and long definite lengths', () => {
    expect(tlv(0x04, Buffer.alloc(3))).toEqual(Buffer.from([0x04, 0x03, 0, 0, 0]));
    expect(tlv(0x04, Buffer.alloc(200)).subarray(0, 3)).toEqual(Buffer.from([0x04, 0x81, 200]));
    expect(tlv(0x04, Buffer.alloc(300)).subarray(0, 4)).toEqual(Buffer.from([0x04, 0x82, 0x01, 0x2c]));
  });

  it('encodes INTEGERs minimally and keeps them positive', () => {
    expect(integer(0)).toEqual(Buffer.from([0x02, 0x01, 0x00]));
    expect(integer(2)).toEqual(Buffer.from([0x02, 0x01, 0x02]));
    expect(integer(128)).toEqual(Buffer.from([0x02, 0x02, 0x00, 0x80]));
    expect(integer(Buffer.from([0x00, 0x00, 0x7f]))).toEqual(Buffer.from([0x02, 0x01, 0x7f]));
  });

  it('encodes OIDs (sha256WithRSAEncryption)', () => {
    expect(objectIdentifier('1.2.840.113549.1.1.11').toString('hex')).toBe('06092a864886f70d01010b');
  });

  it('uses UTCTime before 2050 and GeneralizedTime from 2050', () => {
    expect(time(new Date('2049-12-31T23:59:59Z')).toString('latin1')).toBe('\x17\x0d491231235959Z');
    expect(time(new Date('2050-01-01T00:00:00Z')).toString('latin1')).toBe('\x18\x0f20500101000000Z');
  });
});
