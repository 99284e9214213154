/** Mailgun authentication: every rule has its own negative test. */
import { describe, expect, it } from 'vitest';
import { AuthenticationError, MalformedRequestError, StaleRequestError } from '../../../lambdas/core/errors.js';
import { mailgunProvider } from '../../../lambdas/core/providers/mailgun/index.js';
import { mailgunDemo, mailgunSignature, sampleMailgunEventData, signMailgun } from '../../../lib/demo/mailgun.js';
import { NOW_MS, NOW_SECONDS } from '../support/provider.js';
import { carriesEvents } from '../support/receipt.js';
import { CREDENTIALS, KEY, mailgun, request } from './support.js';

const TOKEN = 'f'.repeat(10) + '0123456789abcdef0123456789abcdef0123456789'.slice(0, 40);
const SIGNATURE = mailgunSignature(KEY, NOW_SECONDS, TOKEN);
const eventData = () => sampleMailgunEventData('hard_bounce', 'bounced@example.com', NOW_MS);

/** A correct body with parts of `signature` replaced (undefined removes the field). */
function body(signature: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  const sig: Record<string, unknown> = { timestamp: NOW_SECONDS, token: TOKEN, signature: SIGNATURE, ...signature };
  for (const [k, v] of Object.entries(signature)) if (v === undefined) delete sig[k];
  return { signature: sig, 'event-data': eventData(), ...extra };
}

async function receive(payload: string | object, options: Parameters<typeof mailgun>[0] = {}) {
  return mailgun(options).provider.receive(request(payload));
}

async function authFails(payload: string | object, message?: RegExp, options: Parameters<typeof mailgun>[0] = {}) {
  const h = mailgun(options);
  const receipt = h.provider.receive(request(payload));
  await expect(receipt).rejects.toThrow(AuthenticationError);
  await expect(receipt).rejects.toMatchObject({ status: 401, code: 'authentication_failed' });
  if (message) await expect(receipt).rejects.toThrow(message);
  // Nothing unauthenticated ever reaches the nonce store.
  expect(h.nonces.claims).toHaveLength(0);
}

describe('Mailgun signature object', () => {
  it('accepts a correctly signed body (the baseline every negative below departs from)', async () => {
    const { events } = await receive(body());
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ kind: 'hard_bounce', recipient: 'bounced@example.com' });
  });

  it('rejects a body without a signature object', async () => {
    await authFails({ 'event-data': eventData() }, /signature object is missing/);
  });

  it('rejects a signature that is not an object', async () => {
    await authFails({ signature: SIGNATURE, 'event-data': eventData() }, /signature object is missing/);
    await authFails({ signature: [NOW_SECONDS, TOKEN, SIGNATURE], 'event-data': eventData() });
  });

  it('rejects a missing timestamp', async () => {
    await authFails(body({ timestamp: undefined }), /timestamp is missing/);
  });

  it('rejects a missing token', async () => {
    await authFails(body({ token: undefined }), /token/);
  });

  it('rejects a missing signature field', async () => {
    await authFails(body({ signature: undefined }), /signature is missing/);
  });

  it('rejects fields of the wrong JSON type', async () => {
    await authFails(body({ timestamp: null }));
    await authFails(body({ timestamp: true }));
    await authFails(body({ token: 12345 }));
    await authFails(body({ signature: { hex: SIGNATURE } }));
  });

  it('rejects an empty or over-long token', async () => {
    await authFails(body({ token: '' }), /token/);
    const long = 'a'.repeat(201);
    await authFails(body({ token: long, signature: mailgunSignature(KEY, NOW_SECONDS, long) }), /token/);
  });

  it('accepts a 200-character token (the upper bound)', async () => {
    const long = 'a'.repeat(200);
    await expect(
      receive(body({ token: long, signature: mailgunSignature(KEY, NOW_SECONDS, long) })),
    ).resolves.toSatisfy(carriesEvents('mailgun'));
  });

  it('rejects a garbled (non-hex) signature', async () => {
    await authFails(body({ signature: `${SIGNATURE.slice(0, 62)}zz` }), /not hex/);
    await authFails(body({ signature: ` ${SIGNATURE}` }), /not hex/);
    await authFails(body({ signature: `${SIGNATURE.slice(0, 63)}` }), /not hex/);
  });

  it('rejects a signature of the wrong length (31 or 33 bytes, a SHA-1 HMAC)', async () => {
    await authFails(body({ signature: SIGNATURE.slice(0, 62) }), /wrong length/);
    await authFails(body({ signature: `${SIGNATURE}00` }), /wrong length/);
    await authFails(body({ signature: 'ab'.repeat(20) }), /wrong length/);
  });

  it('accepts the same signature in upper-case hex (the same bytes; case carries no meaning)', async () => {
    await expect(receive(body({ signature: SIGNATURE.toUpperCase() }))).resolves.toSatisfy(carriesEvents('mailgun'));
  });

  it('rejects a signature made with another key', async () => {
    await authFails(body({ signature: mailgunSignature('another-key', NOW_SECONDS, TOKEN) }), /does not verify/);
  });

  it('rejects a tampered timestamp (still inside the window)', async () => {
    await authFails(body({ timestamp: String(Number(NOW_SECONDS) - 1) }), /does not verify/);
  });

  it('rejects a tampered token', async () => {
    await authFails(body({ token: `${TOKEN.slice(0, -1)}0` }), /does not verify/);
  });

  it('rejects a timestamp that is not plain digits, even when signed as such', async () => {
    for (const ts of [`${NOW_SECONDS}.0`, ` ${NOW_SECONDS}`, `+${NOW_SECONDS}`, `${NOW_SECONDS}abc`, '']) {
      await authFails(body({ timestamp: ts, signature: mailgunSignature(KEY, ts, TOKEN) }));
    }
  });
});

describe('Mailgun numeric timestamps', () => {
  it('accepts the timestamp as a JSON number, concatenating the digits as written', async () => {
    const text = JSON.stringify(body()).replace(`"timestamp":"${NOW_SECONDS}"`, `"timestamp":${NOW_SECONDS}`);
    expect(text).toContain(`"timestamp":${NOW_SECONDS},`);
    await expect(receive(text)).resolves.toMatchObject({ events: [{ kind: 'hard_bounce' }] });
  });

  it('rejects a number written as 1529006854.0 or with an exponent, though it equals the signed value', async () => {
    const mantissa = `${NOW_SECONDS[0]}.${NOW_SECONDS.slice(1)}e${NOW_SECONDS.length - 1}`;
    for (const written of [`${NOW_SECONDS}.0`, mantissa, `${NOW_SECONDS}0e-1`]) {
      expect(JSON.parse(written)).toBe(Number(NOW_SECONDS));
      const text = JSON.stringify(body()).replace(`"timestamp":"${NOW_SECONDS}"`, `"timestamp":${written}`);
      await authFails(text, /not a Unix timestamp/);
    }
  });
});

describe('Mailgun digit shifting between timestamp and token', () => {
  it('a digit moved from the token into the timestamp keeps the HMAC valid, and the window refuses it', async () => {
    const token = `7${TOKEN.slice(1)}`;
    const signature = mailgunSignature(KEY, NOW_SECONDS, token);
    const shifted = { timestamp: `${NOW_SECONDS}7`, token: token.slice(1), signature };
    expect(mailgunSignature(KEY, shifted.timestamp, shifted.token)).toBe(signature);
    await expect(receive(body(shifted))).rejects.toThrow(StaleRequestError);
  });

  it('a digit moved from the timestamp into the token is refused the same way', async () => {
    const shifted = {
      timestamp: NOW_SECONDS.slice(0, -1),
      token: `${NOW_SECONDS.slice(-1)}${TOKEN}`,
      signature: SIGNATURE,
    };
    expect(mailgunSignature(KEY, shifted.timestamp, shifted.token)).toBe(SIGNATURE);
    await expect(receive(body(shifted))).rejects.toThrow(StaleRequestError);
  });
});

describe('Mailgun strict JSON', () => {
  it('rejects a body that is not JSON, or not an object, with 400', async () => {
    for (const text of ['signature=abc', '[]', '"x"', '']) {
      await expect(receive(text)).rejects.toThrow(MalformedRequestError);
    }
  });

  it('rejects a body that is not UTF-8 with 400', async () => {
    const bytes = Buffer.concat([
      Buffer.from(JSON.stringify(body()).slice(0, -1)),
      Buffer.from(',"x":"'),
      Buffer.from([0xc3]),
      Buffer.from('"}'),
    ]);
    await expect(mailgun().provider.receive(request(bytes))).rejects.toThrow(MalformedRequestError);
  });

  it('rejects a duplicate `token` (one signed, one attacker-chosen), whichever order', async () => {
    const signed = JSON.stringify(body());
    const before = signed.replace(`"token":"${TOKEN}"`, `"token":"attacker","token":"${TOKEN}"`);
    const after = signed.replace(`"token":"${TOKEN}"`, `"token":"${TOKEN}","token":"attacker"`);
    // JSON.parse keeps the last copy: when that is the signed token the duplicate-key check refuses the
    // body (400); when it is the attacker's, the signature already fails (401). Never accepted.
    await expect(receive(before)).rejects.toThrow(/duplicate JSON key/);
    await expect(receive(after)).rejects.toThrow(/does not verify/);
  });

  it('rejects a duplicate `signature` field inside the signature object', async () => {
    const text = JSON.stringify(body()).replace(
      `"signature":"${SIGNATURE}"`,
      `"signature":"${'0'.repeat(64)}","signature":"${SIGNATURE}"`,
    );
    await expect(receive(text)).rejects.toThrow(MalformedRequestError);
  });

  it('rejects a duplicate top-level `signature` object', async () => {
    const b = body();
    const text = `{"signature":{"timestamp":"1","token":"x","signature":"${'0'.repeat(64)}"},${JSON.stringify(b).slice(1)}`;
    await expect(receive(text)).rejects.toThrow(MalformedRequestError);
  });

  it('rejects a duplicate `event-data` object (the unsigned part, the one worth forging)', async () => {
    const forged = JSON.stringify(sampleMailgunEventData('delivered', 'victim@example.com', NOW_MS));
    const text = JSON.stringify(body()).replace(/}$/, `,"event-data":${forged}}`);
    await expect(receive(text)).rejects.toThrow(/duplicate JSON key/);
  });

  it('rejects a duplicate key deep inside event-data', async () => {
    const text = JSON.stringify(body()).replace(
      '"recipient":"bounced@example.com"',
      '"recipient":"bounced@example.com","recipient":"x@example.com"',
    );
    await expect(receive(text)).rejects.toThrow(/duplicate JSON key/);
  });
});

describe('Mailgun key rotation', () => {
  it('accepts a body only the second of two keys verifies', async () => {
    await expect(receive(body(), { credentials: ['old-key-no-longer-used', KEY] })).resolves.toSatisfy(
      carriesEvents('mailgun'),
    );
  });

  it('accepts a body the first of two keys verifies', async () => {
    await expect(receive(body(), { credentials: [KEY, 'next-key'] })).resolves.toSatisfy(carriesEvents('mailgun'));
  });

  it('rejects a body neither key verifies', async () => {
    await authFails(body(), /does not verify/, { credentials: ['k1', 'k2'] });
  });

  it('throws at create for an empty key', () => {
    expect(() => mailgun({ credentials: [KEY, '  '] })).toThrow(/empty/);
  });
});

describe('Mailgun time window', () => {
  const FIVE_MINUTES = 300_000;
  const NINE_HOURS = 9 * 3_600_000;

  it('accepts the edges of the default window: 9 h old (Mailgun retries for ~8 h), 5 min ahead', async () => {
    expect((await receive(body(), { nowMs: NOW_MS + NINE_HOURS })).events).toHaveLength(1);
    expect((await receive(body(), { nowMs: NOW_MS - FIVE_MINUTES })).events).toHaveLength(1);
  });

  it('rejects a stale timestamp (9 h + 1 s), before claiming the token', async () => {
    const h = mailgun({ nowMs: NOW_MS + NINE_HOURS + 1000 });
    await expect(h.provider.receive(request(body()))).rejects.toMatchObject({ status: 401, code: 'stale_request' });
    expect(h.nonces.claims).toHaveLength(0);
  });

  it('rejects a future timestamp', async () => {
    await expect(receive(body(), { nowMs: NOW_MS - FIVE_MINUTES - 1000 })).rejects.toThrow(StaleRequestError);
  });

  it('honours MAILGUN_TOLERANCE_SECONDS', async () => {
    const settings = { MAILGUN_TOLERANCE_SECONDS: '30' };
    await expect(receive(body(), { nowMs: NOW_MS + 29_000, settings })).resolves.toSatisfy(carriesEvents('mailgun'));
    await expect(receive(body(), { nowMs: NOW_MS + 31_000, settings })).rejects.toThrow(StaleRequestError);
  });

  it('throws at create for an invalid tolerance setting', () => {
    expect(() => mailgun({ settings: { MAILGUN_TOLERANCE_SECONDS: '5m' } })).toThrow(/MAILGUN_TOLERANCE_SECONDS/);
    expect(() => mailgun({ settings: { MAILGUN_TOLERANCE_SECONDS: '172801' } })).toThrow(/MAILGUN_TOLERANCE_SECONDS/);
  });

  it('checks the signature before the window: a forged stale body is an authentication failure', async () => {
    await authFails(body({ signature: mailgunSignature('other', NOW_SECONDS, TOKEN) }), /does not verify/, {
      nowMs: NOW_MS + 3_600_000,
    });
  });
});

describe('Mailgun demo signer', () => {
  it.each(['delivered', 'hard_bounce', 'soft_bounce', 'complaint', 'unsubscribe'] as const)(
    'signs a %s that verifies and maps back',
    async (kind) => {
      const signed = mailgunDemo.sign(kind, 'demo@example.com', CREDENTIALS, NOW_MS);
      const { events } = await mailgun().provider.receive({ body: Buffer.from(signed.body), headers: signed.headers });
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ kind, recipient: 'demo@example.com', provider: 'mailgun' });
      expect(JSON.parse(signed.body).signature.token).toHaveLength(50);
      expect(Object.keys(signed.headers).every((h) => h === h.toLowerCase())).toBe(true);
    },
  );

  it('credential and signing secret are the same random key, fresh each time', () => {
    const a = mailgunDemo.createCredentials();
    const b = mailgunDemo.createCredentials();
    expect(a.credential).toBe(a.signingSecret);
    expect(a.credential).not.toBe(b.credential);
  });

  it('signMailgun timestamps in whole seconds', () => {
    expect(signMailgun(KEY, NOW_MS + 999).timestamp).toBe(NOW_SECONDS);
  });

  it('is registered under the expected names', () => {
    expect(mailgunProvider).toMatchObject({
      name: 'mailgun',
      credentialsVariable: 'MAILGUN_SIGNING_KEYS',
      secretArnVariable: 'MAILGUN_SECRET_ARN',
    });
  });
});
