/** SendGrid authentication with generated keys: every rule has its own negative test. */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AuthenticationError, StaleRequestError } from '../../../lambdas/core/errors.js';
import { parseSendgridPublicKey, sendgridProvider } from '../../../lambdas/core/providers/sendgrid/index.js';
import { verifySendgridSignature } from '../../../lambdas/core/providers/sendgrid/verify.js';
import { sendgridDemo, signSendgridBody } from '../../../lib/demo/sendgrid.js';
import { NOW_MS, NOW_SECONDS, providerDeps, request } from '../support/provider.js';
import { carriesEvents } from '../support/receipt.js';
import { SIGNATURE_HEADER, sendgrid, TIMESTAMP_HEADER } from './support.js';

const creds = sendgridDemo.createCredentials();
const other = sendgridDemo.createCredentials();

function signed(nowMs = NOW_MS, credentials = creds) {
  const r = sendgridDemo.sign('hard_bounce', 'bounced@example.com', credentials, nowMs);
  return request(r.body, r.headers);
}

function withHeaders(base: ReturnType<typeof signed>, headers: Record<string, string | undefined>) {
  return request(base.body, { ...base.headers, ...headers });
}

async function rejection(promise: Promise<unknown>): Promise<{ status: number; code: string }> {
  const error = await promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
  return error as { status: number; code: string };
}

describe('SendGrid signature headers', () => {
  it('accepts a correctly signed request (the baseline every negative below departs from)', async () => {
    const { events } = await sendgrid([creds.credential]).receive(signed());
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ kind: 'hard_bounce', recipient: 'bounced@example.com' });
  });

  it('rejects a missing signature header with 401', async () => {
    const error = await rejection(
      sendgrid([creds.credential]).receive(withHeaders(signed(), { [SIGNATURE_HEADER]: undefined })),
    );
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.status).toBe(401);
  });

  it('rejects a missing timestamp header with 401', async () => {
    const error = await rejection(
      sendgrid([creds.credential]).receive(withHeaders(signed(), { [TIMESTAMP_HEADER]: undefined })),
    );
    expect(error).toBeInstanceOf(AuthenticationError);
  });

  it('rejects blank headers', () => {
    const keys = [parseSendgridPublicKey(creds.credential)];
    expect(() => verifySendgridSignature(withHeaders(signed(), { [SIGNATURE_HEADER]: '  ' }), keys)).toThrow(
      AuthenticationError,
    );
    expect(() => verifySendgridSignature(withHeaders(signed(), { [TIMESTAMP_HEADER]: '' }), keys)).toThrow(
      AuthenticationError,
    );
  });

  it('rejects a garbled timestamp (digits with a suffix, a sign, a fraction)', () => {
    const keys = [parseSendgridPublicKey(creds.credential)];
    for (const timestamp of [
      `${NOW_SECONDS}abc`,
      `+${NOW_SECONDS}`,
      `${NOW_SECONDS}.0`,
      `0x${Number(NOW_SECONDS).toString(16)}`,
    ]) {
      expect(() => verifySendgridSignature(withHeaders(signed(), { [TIMESTAMP_HEADER]: timestamp }), keys)).toThrow(
        /not a Unix timestamp/,
      );
    }
  });

  it('rejects a duplicated (comma-joined) timestamp header, even when both copies are the signed value', () => {
    const base = signed();
    const keys = [parseSendgridPublicKey(creds.credential)];
    const ts = base.headers[TIMESTAMP_HEADER]!;
    expect(() => verifySendgridSignature(withHeaders(base, { [TIMESTAMP_HEADER]: `${ts},${ts}` }), keys)).toThrow(
      AuthenticationError,
    );
  });

  it('rejects a duplicated (comma-joined) signature header, even when one copy is valid', () => {
    const base = signed();
    const keys = [parseSendgridPublicKey(creds.credential)];
    const sig = base.headers[SIGNATURE_HEADER]!;
    expect(() => verifySendgridSignature(withHeaders(base, { [SIGNATURE_HEADER]: `${sig},${sig}` }), keys)).toThrow(
      AuthenticationError,
    );
    expect(() => verifySendgridSignature(withHeaders(base, { [SIGNATURE_HEADER]: `${sig}, ${sig}` }), keys)).toThrow(
      AuthenticationError,
    );
  });

  it('rejects a signature that is not strict base64', () => {
    const base = signed();
    const keys = [parseSendgridPublicKey(creds.credential)];
    const sig = base.headers[SIGNATURE_HEADER]!;
    // Buffer.from(x, 'base64') would skip the '*' and the URL-safe characters and decode the rest.
    for (const garbled of [
      `${sig.slice(0, 10)}*${sig.slice(10)}`,
      sig.replace(/\+/g, '-').replace(/\//g, '_'),
      sig.replace(/=+$/, ''),
    ]) {
      if (garbled === sig) continue;
      expect(() => verifySendgridSignature(withHeaders(base, { [SIGNATURE_HEADER]: garbled }), keys)).toThrow(
        AuthenticationError,
      );
    }
  });

  it('rejects signatures of impossible length before verifying', () => {
    const keys = [parseSendgridPublicKey(creds.credential)];
    const tooShort = Buffer.alloc(4).toString('base64');
    const tooLong = Buffer.alloc(73).toString('base64');
    const huge = Buffer.alloc(5000).toString('base64');
    expect(() => verifySendgridSignature(withHeaders(signed(), { [SIGNATURE_HEADER]: tooShort }), keys)).toThrow(
      /wrong length/,
    );
    expect(() => verifySendgridSignature(withHeaders(signed(), { [SIGNATURE_HEADER]: tooLong }), keys)).toThrow(
      /wrong length/,
    );
    expect(() => verifySendgridSignature(withHeaders(signed(), { [SIGNATURE_HEADER]: huge }), keys)).toThrow(
      /wrong length/,
    );
  });

  it('rejects a well-formed signature made over something else', () => {
    const base = signed();
    const keys = [parseSendgridPublicKey(creds.credential)];
    const otherSig = signSendgridBody('[]', NOW_SECONDS, creds.signingSecret)[SIGNATURE_HEADER];
    expect(() => verifySendgridSignature(withHeaders(base, { [SIGNATURE_HEADER]: otherSig }), keys)).toThrow(
      /does not verify/,
    );
  });
});

describe('SendGrid signed content', () => {
  it('rejects the body changed by one byte after signing', async () => {
    const base = signed();
    const body = Buffer.from(base.body);
    body[body.indexOf('bounced@')] = 'c'.charCodeAt(0);
    await expect(sendgrid([creds.credential]).receive(request(body, base.headers))).rejects.toThrow(
      AuthenticationError,
    );
  });

  it('rejects the body with its trailing CRLF stripped (a re-serialized body never verifies)', async () => {
    const base = signed();
    const body = Buffer.from(base.body.toString().trimEnd());
    await expect(sendgrid([creds.credential]).receive(request(body, base.headers))).rejects.toThrow(
      AuthenticationError,
    );
  });

  it('rejects a timestamp header changed after signing, even inside the window', async () => {
    const base = signed();
    const moved = String(Number(base.headers[TIMESTAMP_HEADER]) - 1);
    await expect(
      sendgrid([creds.credential]).receive(withHeaders(base, { [TIMESTAMP_HEADER]: moved })),
    ).rejects.toThrow(AuthenticationError);
  });

  it('rejects a request signed with another key', async () => {
    await expect(sendgrid([creds.credential]).receive(signed(NOW_MS, other))).rejects.toThrow(/does not verify/);
  });
});

describe('SendGrid key rotation', () => {
  it('accepts a request only the second of two configured keys verifies', async () => {
    const { events } = await sendgrid([other.credential, creds.credential]).receive(signed());
    expect(events).toHaveLength(1);
  });

  it('accepts a request the first of two keys verifies', async () => {
    const { events } = await sendgrid([creds.credential, other.credential]).receive(signed());
    expect(events).toHaveLength(1);
  });

  it('rejects a request neither key verifies', async () => {
    const third = sendgridDemo.createCredentials();
    await expect(sendgrid([other.credential, third.credential]).receive(signed())).rejects.toThrow(AuthenticationError);
  });
});

describe('SendGrid key parsing (at create)', () => {
  const pem = () => parseSendgridPublicKey(creds.credential).export({ type: 'spki', format: 'pem' }).toString();

  it('accepts a PEM public key, and verifies with it', async () => {
    expect(pem()).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    const { events } = await sendgrid([pem()]).receive(signed());
    expect(events).toHaveLength(1);
  });

  it('accepts a PEM whose newlines arrive as a literal \\n (environment files)', async () => {
    const escaped = pem().trim().replace(/\n/g, '\\n');
    expect(escaped).not.toContain('\n');
    const { events } = await sendgrid([escaped]).receive(signed());
    expect(events).toHaveLength(1);
  });

  it('throws at create for a key that is not base64 or PEM', () => {
    expect(() => sendgridProvider.create(providerDeps(['not a key!']))).toThrow(/neither base64 DER/);
    expect(() => sendgridProvider.create(providerDeps([Buffer.from('garbage bytes').toString('base64')]))).toThrow(
      /neither/,
    );
  });

  it('throws at create when any one of several keys is bad (no silent partial rotation)', () => {
    expect(() => sendgridProvider.create(providerDeps([creds.credential, 'bad']))).toThrow(Error);
  });

  it('throws at create for an EC key on another curve (P-384, secp256k1)', () => {
    for (const namedCurve of ['P-384', 'secp256k1']) {
      const { publicKey } = generateKeyPairSync('ec', { namedCurve });
      const der = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
      expect(() => parseSendgridPublicKey(der)).toThrow(/not an EC P-256 key/);
    }
  });

  it('throws at create for RSA and Ed25519 keys', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'der' });
    const ed = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'der' });
    expect(() => parseSendgridPublicKey(rsa.toString('base64'))).toThrow(/not an EC P-256 key/);
    expect(() => parseSendgridPublicKey(ed.toString('base64'))).toThrow(/not an EC P-256 key/);
  });

  it('refuses a private key pasted as the credential instead of deriving its public key', () => {
    expect(() => parseSendgridPublicKey(creds.signingSecret)).toThrow(Error);
  });

  it('does not report a bad key as a 4xx WebhookError (it is configuration, not the request)', () => {
    let thrown: unknown;
    try {
      parseSendgridPublicKey('@@@');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect(thrown).not.toBeInstanceOf(AuthenticationError);
  });
});

describe('SendGrid time window', () => {
  const FIVE_MINUTES = 300_000;
  const TWENTY_FIVE_HOURS = 25 * 3_600_000;

  it('accepts the edges of the default window: 25 h old (SendGrid retries for 24 h), 5 min ahead', async () => {
    const old = await sendgrid([creds.credential], NOW_MS + TWENTY_FIVE_HOURS).receive(signed());
    expect(old.events).toHaveLength(1);
    const ahead = await sendgrid([creds.credential], NOW_MS - FIVE_MINUTES).receive(signed());
    expect(ahead.events).toHaveLength(1);
  });

  it('rejects a stale timestamp (25 h + 1 s old)', async () => {
    const error = await rejection(sendgrid([creds.credential], NOW_MS + TWENTY_FIVE_HOURS + 1000).receive(signed()));
    expect(error).toBeInstanceOf(StaleRequestError);
    expect(error).toMatchObject({ status: 401, code: 'stale_request' });
  });

  it('rejects a future timestamp (5 min + 1 s ahead)', async () => {
    const error = await rejection(sendgrid([creds.credential], NOW_MS - FIVE_MINUTES - 1000).receive(signed()));
    expect(error).toBeInstanceOf(StaleRequestError);
  });

  it('honours SENDGRID_TOLERANCE_SECONDS', async () => {
    const settings = { SENDGRID_TOLERANCE_SECONDS: '60' };
    await expect(sendgrid([creds.credential], NOW_MS + 59_000, settings).receive(signed())).resolves.toSatisfy(
      carriesEvents('sendgrid'),
    );
    await expect(sendgrid([creds.credential], NOW_MS + 61_000, settings).receive(signed())).rejects.toThrow(
      StaleRequestError,
    );
    const wide = { SENDGRID_TOLERANCE_SECONDS: '3600' };
    await expect(sendgrid([creds.credential], NOW_MS + 3_599_000, wide).receive(signed())).resolves.toSatisfy(
      carriesEvents('sendgrid'),
    );
  });

  it('throws at create for an invalid tolerance setting', () => {
    for (const value of ['abc', '0', '-5', '1.5', '172801']) {
      expect(() =>
        sendgridProvider.create(providerDeps([creds.credential], { settings: { SENDGRID_TOLERANCE_SECONDS: value } })),
      ).toThrow(/SENDGRID_TOLERANCE_SECONDS/);
    }
  });

  it('checks the signature before the window: a forged stale request is an authentication failure', async () => {
    const forged = signed(NOW_MS, other);
    await expect(sendgrid([creds.credential], NOW_MS + 3_600_000).receive(forged)).rejects.toThrow(AuthenticationError);
  });
});

describe('SendGrid definition and demo credentials', () => {
  it('is registered under the expected names', () => {
    expect(sendgridProvider).toMatchObject({
      name: 'sendgrid',
      credentialsVariable: 'SENDGRID_PUBLIC_KEYS',
      secretArnVariable: 'SENDGRID_SECRET_ARN',
    });
    expect(sendgrid([creds.credential]).name).toBe('sendgrid');
  });

  it('demo credentials are a base64 DER SPKI P-256 public key and a PKCS8 PEM private key', () => {
    expect(creds.credential).toMatch(/^MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE[A-Za-z0-9+/]+={0,2}$/);
    expect(creds.signingSecret).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(other.credential).not.toBe(creds.credential);
  });

  it('the demo signer signs with the current second as the timestamp header', () => {
    const r = sendgridDemo.sign('delivered', 'a@example.com', creds, NOW_MS + 999);
    expect(r.headers[TIMESTAMP_HEADER]).toBe(NOW_SECONDS);
    expect(r.body.endsWith('}]\r\n')).toBe(true);
  });
});
