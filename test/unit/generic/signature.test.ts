/** Generic contract, rules 1–4: headers, signature, window. Every failure is 401. */
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AuthenticationError, MalformedRequestError, StaleRequestError } from '../../../lambdas/core/errors.js';
import { genericSignature } from '../../../lib/demo/generic.js';
import { request } from '../support/provider.js';
import { carriesEvents } from '../support/receipt.js';
import {
  EXAMPLE,
  event,
  exampleHeaders,
  generic,
  NOW_SECONDS,
  OTHER_SECRET,
  SECRET,
  signedRequest,
} from './support.js';

describe('the worked example', () => {
  it('is HMAC-SHA256(secret UTF-8, `${timestamp}.${id}.${body}`) in hex, computed independently', () => {
    const mac = createHmac('sha256', EXAMPLE.secret)
      .update(`${EXAMPLE.timestamp}.${EXAMPLE.id}.${EXAMPLE.body}`)
      .digest('hex');
    expect(`v1=${mac}`).toBe(EXAMPLE.signature);
    expect(genericSignature(EXAMPLE.secret, EXAMPLE.id, EXAMPLE.timestamp, EXAMPLE.body)).toBe(EXAMPLE.signature);
  });

  it('verifies and maps', async () => {
    const { events } = await generic().receive(request(EXAMPLE.body, exampleHeaders()));
    expect(events).toEqual([
      {
        provider: 'generic',
        eventId: EXAMPLE.id,
        recipient: 'jane@example.com',
        kind: 'hard_bounce',
        occurredAt: Date.parse('2023-11-14T22:13:15Z'),
        detail: { providerEventType: 'hard_bounce' },
        raw: EXAMPLE.body,
        // No `sender` in the body: the provider as a whole.
        sender: 'generic',
      },
    ]);
  });

  it('is the one printed in docs/generic-webhook-contract.md', () => {
    const doc = readFileSync(new URL('../../../docs/generic-webhook-contract.md', import.meta.url), 'utf8');
    for (const value of Object.values(EXAMPLE)) expect(doc).toContain(value);
  });
});

describe('headers', () => {
  it.each(['x-event-id', 'x-webhook-timestamp', 'x-webhook-signature'])(
    'rejects a request without %s',
    async (name) => {
      const error = await generic()
        .receive(request(EXAMPLE.body, exampleHeaders({ [name]: undefined })))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AuthenticationError);
      expect((error as Error).message).toContain(name);
    },
  );

  it.each([
    ['an empty id', ''],
    ['a space', 'evt 1'],
    ['a non-ASCII character', 'evt_é'],
    ['a control character', 'evt_\u0001'],
    ['201 characters', 'e'.repeat(201)],
  ])('rejects an x-event-id with %s, even when correctly signed', async (_, id) => {
    await expect(generic().receive(signedRequest(event({ id })))).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('accepts a 200-character id of any printable ASCII', async () => {
    const id = `${'!#$%&*+-./:;=?@[]^_{|}~'.repeat(8)}`.padEnd(200, 'x').slice(0, 200);
    const { events } = await generic().receive(signedRequest(event({ id })));
    expect(events[0]!.eventId).toBe(id);
  });
});

describe('signature', () => {
  const mac = EXAMPLE.signature.slice(3);

  it('accepts upper-case hex', async () => {
    await expect(
      generic().receive(request(EXAMPLE.body, exampleHeaders({ 'x-webhook-signature': `v1=${mac.toUpperCase()}` }))),
    ).resolves.toSatisfy(carriesEvents('generic'));
  });

  it('accepts mixed-case hex', async () => {
    const mixed = [...mac].map((c, i) => (i % 2 ? c.toUpperCase() : c)).join('');
    await expect(
      generic().receive(request(EXAMPLE.body, exampleHeaders({ 'x-webhook-signature': `v1=${mixed}` }))),
    ).resolves.toSatisfy(carriesEvents('generic'));
  });

  it.each([
    ['63 hex digits', `v1=${mac.slice(0, 63)}`],
    ['65 hex digits', `v1=${mac}0`],
    ['the MAC in base64', `v1=${Buffer.from(mac, 'hex').toString('base64')}`],
    ['another version', `v2=${mac}`],
    ['a `sha256=` prefix', `sha256=${mac}`],
    ['no prefix', mac],
    ['`v1,` (the Standard Webhooks form)', `v1,${mac}`],
    ['two comma-separated entries', `v1=${mac},v1=${mac}`],
    ['two space-separated entries', `v1=${mac} v1=${mac}`],
    ['a trailing space', `v1=${mac} `],
    ['a non-hex character', `v1=${mac.slice(0, 63)}g`],
    // Node's hex decoder and latin1 both read only a character's low byte: U+0100 + c must not pass for c.
    // (For a, c and e that is a lower-case letter, š ţ ť, so lower-casing the value keeps its low byte.)
    [
      'a non-ASCII character whose low byte is the right digit',
      `v1=${mac.replace(/[ace]/, (c) => String.fromCharCode(0x100 + c.charCodeAt(0)))}`,
    ],
    ['an upper-case version (`V1=`)', `V1=${mac}`],
  ])('rejects %s, even when the MAC inside is right', async (_, signature) => {
    await expect(
      generic().receive(request(EXAMPLE.body, exampleHeaders({ 'x-webhook-signature': signature }))),
    ).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('rejects a tampered body', async () => {
    const tampered = EXAMPLE.body.replace('jane@', 'john@');
    await expect(generic().receive(request(tampered, exampleHeaders()))).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('rejects a wrong secret', async () => {
    await expect(generic([OTHER_SECRET]).receive(request(EXAMPLE.body, exampleHeaders()))).rejects.toBeInstanceOf(
      AuthenticationError,
    );
  });

  it('binds the id: another x-event-id breaks it', async () => {
    await expect(
      generic().receive(request(EXAMPLE.body, exampleHeaders({ 'x-event-id': 'evt_other' }))),
    ).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('binds the timestamp: another (fresh) x-webhook-timestamp breaks it', async () => {
    await expect(
      generic().receive(
        request(EXAMPLE.body, exampleHeaders({ 'x-webhook-timestamp': String(Number(EXAMPLE.timestamp) + 1) })),
      ),
    ).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('uses `${timestamp}.${id}.` in that order: id-first signing fails', async () => {
    const swapped = `v1=${createHmac('sha256', SECRET).update(`${EXAMPLE.id}.${EXAMPLE.timestamp}.${EXAMPLE.body}`).digest('hex')}`;
    await expect(
      generic().receive(request(EXAMPLE.body, exampleHeaders({ 'x-webhook-signature': swapped }))),
    ).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('uses the secret as UTF-8 bytes, not hex- or base64-decoded', async () => {
    const hexSecret = 'a'.repeat(64);
    const body = JSON.stringify(event());
    const decoded = `v1=${createHmac('sha256', Buffer.from(hexSecret, 'hex')).update(`${NOW_SECONDS}.evt_1.${body}`).digest('hex')}`;
    const headers = { 'x-event-id': 'evt_1', 'x-webhook-timestamp': NOW_SECONDS, 'x-webhook-signature': decoded };
    await expect(generic([hexSecret]).receive(request(body, headers))).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('accepts any configured secret (rotation overlap)', async () => {
    const provider = generic([OTHER_SECRET, SECRET]);
    await expect(provider.receive(signedRequest(event(), { secret: SECRET }))).resolves.toSatisfy(
      carriesEvents('generic'),
    );
    await expect(provider.receive(signedRequest(event(), { secret: OTHER_SECRET }))).resolves.toSatisfy(
      carriesEvents('generic'),
    );
  });

  it('authenticates before parsing: unsigned garbage is 401, not 400', async () => {
    await expect(generic().receive(request('{not json', exampleHeaders()))).rejects.toBeInstanceOf(AuthenticationError);
  });
});

describe('timestamp', () => {
  const at = (seconds: number, settings: Record<string, string> = {}) =>
    generic([SECRET], Number(NOW_SECONDS) * 1000, settings).receive(
      signedRequest(event(), { timestamp: String(seconds) }),
    );
  const now = Number(NOW_SECONDS);

  it('accepts exactly ±300 s', async () => {
    await expect(at(now - 300)).resolves.toSatisfy(carriesEvents('generic'));
    await expect(at(now + 300)).resolves.toSatisfy(carriesEvents('generic'));
  });

  it('rejects 301 s old and 301 s ahead as stale (401)', async () => {
    await expect(at(now - 301)).rejects.toBeInstanceOf(StaleRequestError);
    await expect(at(now + 301)).rejects.toBeInstanceOf(StaleRequestError);
  });

  it('honours GENERIC_WEBHOOK_TOLERANCE_SECONDS', async () => {
    await expect(at(now - 61, { GENERIC_WEBHOOK_TOLERANCE_SECONDS: '60' })).rejects.toBeInstanceOf(StaleRequestError);
    await expect(at(now - 599, { GENERIC_WEBHOOK_TOLERANCE_SECONDS: '600' })).resolves.toSatisfy(
      carriesEvents('generic'),
    );
  });

  it('refuses an invalid GENERIC_WEBHOOK_TOLERANCE_SECONDS at create()', () => {
    expect(() => generic([SECRET], Number(NOW_SECONDS) * 1000, { GENERIC_WEBHOOK_TOLERANCE_SECONDS: '0' })).toThrow(
      /GENERIC_WEBHOOK_TOLERANCE_SECONDS/,
    );
  });

  it('reads a millisecond timestamp as seconds, far in the future: stale (401)', async () => {
    await expect(generic().receive(signedRequest(event(), { timestamp: `${NOW_SECONDS}000` }))).rejects.toBeInstanceOf(
      StaleRequestError,
    );
  });

  it.each([
    ['trailing garbage', `${NOW_SECONDS}abc`],
    ['a fraction', `${NOW_SECONDS}.0`],
    ['a sign', `+${NOW_SECONDS}`],
    ['ISO-8601', new Date(Number(NOW_SECONDS) * 1000).toISOString()],
  ])('rejects a timestamp with %s, even when the signature covers it exactly', async (_, timestamp) => {
    const error = await generic()
      .receive(signedRequest(event(), { timestamp }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).not.toBeInstanceOf(MalformedRequestError);
  });
});

describe('secrets at create()', () => {
  it('refuses a secret shorter than 32 bytes, naming the entry but not echoing it', () => {
    expect(() => generic([SECRET, 'short-secret'])).toThrow(/GENERIC_WEBHOOK_SECRETS entry 2 is shorter than 32 bytes/);
    expect(() => generic(['short-secret'])).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('short-secret') }),
    );
  });

  it('accepts exactly 32 bytes', () => {
    expect(() => generic(['x'.repeat(32)])).not.toThrow();
  });
});
