/**
 * The SendGrid provider's public contract as data: route name, variable names, the default window,
 * and which configured keys `create()` accepts (PEM armor and its exact framing, the curve).
 */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  parseSendgridPublicKey,
  SENDGRID_DEFAULT_WINDOW_SECONDS,
  SENDGRID_TOLERANCE_SETTING,
  sendgridProvider,
  sendgridWindow,
} from '../../../lambdas/core/providers/sendgrid/index.js';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER } from '../../../lambdas/core/providers/sendgrid/verify.js';

const NEITHER = 'SendGrid public key is neither base64 DER SubjectPublicKeyInfo nor a PEM public key';
const NOT_P256 = 'SendGrid public key is not an EC P-256 key';

const p256 = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey;
const PEM = p256.export({ type: 'spki', format: 'pem' }).toString();
const DER_BASE64 = p256.export({ type: 'spki', format: 'der' }).toString('base64');

describe('SendGrid provider definition', () => {
  it('names its route, variables, setting and headers exactly as documented', () => {
    expect(sendgridProvider.name).toBe('sendgrid');
    expect(sendgridProvider.credentialsVariable).toBe('SENDGRID_PUBLIC_KEYS');
    expect(sendgridProvider.secretArnVariable).toBe('SENDGRID_SECRET_ARN');
    expect(SENDGRID_TOLERANCE_SETTING).toBe('SENDGRID_TOLERANCE_SECONDS');
    expect(sendgridProvider.settings).toEqual([
      {
        variable: 'SENDGRID_TOLERANCE_SECONDS',
        describe:
          'How old a signed timestamp may be, whole seconds up to 48 h; ahead, the same capped at 5 min (default 90000, 25 h)',
      },
    ]);
    expect(SIGNATURE_HEADER).toBe('x-twilio-email-event-webhook-signature');
    expect(TIMESTAMP_HEADER).toBe('x-twilio-email-event-webhook-timestamp');
  });

  it('defaults to a 25 h window (90000 s), 5 min ahead; the setting overrides it', () => {
    expect(SENDGRID_DEFAULT_WINDOW_SECONDS).toBe(90_000);
    expect(sendgridWindow({})).toEqual({ maxAgeMs: 90_000_000, maxFutureMs: 300_000 });
    expect(sendgridWindow({ SENDGRID_TOLERANCE_SECONDS: '60' })).toEqual({ maxAgeMs: 60_000, maxFutureMs: 60_000 });
    expect(sendgridProvider.signatureWindow!({})).toEqual({
      window: { maxAgeMs: 90_000_000, maxFutureMs: 300_000 },
      variables: ['SENDGRID_TOLERANCE_SECONDS'],
    });
    expect(sendgridProvider.signatureWindow!({ SENDGRID_TOLERANCE_SECONDS: '120' }).window).toEqual({
      maxAgeMs: 120_000,
      maxFutureMs: 120_000,
    });
  });
});

describe('SendGrid public key parsing', () => {
  it('reads a multi-line PEM public key as the same key as its base64 DER', () => {
    const key = parseSendgridPublicKey(PEM);
    expect(key.export({ type: 'spki', format: 'der' }).toString('base64')).toBe(DER_BASE64);
    expect(parseSendgridPublicKey(DER_BASE64).equals(key)).toBe(true);
  });

  it('reads a PEM whose newlines arrive as literal \\n (an environment file), with surrounding blanks', () => {
    const oneLine = PEM.trim().replace(/\n/g, '\\n');
    const key = parseSendgridPublicKey(`  ${oneLine}  \n`);
    expect(key.export({ type: 'spki', format: 'der' }).toString('base64')).toBe(DER_BASE64);
  });

  it('refuses PEM armor with anything before BEGIN or after END', () => {
    expect(() => parseSendgridPublicKey(`x${PEM}`)).toThrow(NEITHER);
    expect(() => parseSendgridPublicKey(`${PEM.trim()}x`)).toThrow(NEITHER);
  });

  it('refuses an empty PEM body', () => {
    expect(() => parseSendgridPublicKey('-----BEGIN PUBLIC KEY-----\n-----END PUBLIC KEY-----')).toThrow(NEITHER);
  });

  it('refuses an EC key on another curve, and a non-EC key', () => {
    const p384 = generateKeyPairSync('ec', { namedCurve: 'secp384r1' })
      .publicKey.export({ type: 'spki', format: 'der' })
      .toString('base64');
    expect(() => parseSendgridPublicKey(p384)).toThrow(NOT_P256);
    const ed = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
    expect(() => parseSendgridPublicKey(ed)).toThrow(NOT_P256);
  });
});
