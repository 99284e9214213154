/** Generic contract, rules 5–8: the signed body. A genuine request that breaks the contract is 400. */
import { describe, expect, it } from 'vitest';
import { MalformedRequestError } from '../../../lambdas/core/errors.js';
import type { ActionableKind } from '../../../lambdas/core/event.js';
import { genericProvider } from '../../../lambdas/core/providers/generic/index.js';
import { genericDemo, signGenericBody } from '../../../lib/demo/generic.js';
import { providerDeps, request } from '../support/provider.js';
import { event, generic, NOW_MS, NOW_SECONDS, signedRequest } from './support.js';

const KINDS: ActionableKind[] = ['delivered', 'soft_bounce', 'hard_bounce', 'complaint', 'unsubscribe'];

async function receiveOne(fields: Record<string, unknown>) {
  const { events } = await generic().receive(signedRequest(fields));
  expect(events).toHaveLength(1);
  return events[0]!;
}

function rejects400(fields: Record<string, unknown>, options?: Parameters<typeof signedRequest>[1]) {
  return expect(generic().receive(signedRequest(fields, options))).rejects.toBeInstanceOf(MalformedRequestError);
}

describe('type', () => {
  it.each(KINDS)('%s → %s', async (kind) => {
    expect(await receiveOne(event({ type: kind }))).toMatchObject({
      kind,
      eventId: 'evt_1',
      detail: { providerEventType: kind },
    });
  });

  it.each(['ignored', 'bounce', 'Hard_Bounce', 'spam', '', 'constructor'])('rejects type %j', async (type) => {
    await rejects400(event({ type }));
  });

  it.each([[null], [1], [['hard_bounce']]])('rejects a non-string type %j', async (type) => {
    await rejects400(event({ type }));
  });

  it('rejects a missing type', async () => {
    const { type: _, ...fields } = event();
    await rejects400(fields);
  });
});

describe('id', () => {
  it('rejects a body id that differs from x-event-id (both signed: a sender bug, 400)', async () => {
    await rejects400(event({ id: 'evt_1' }), { id: 'evt_2' });
  });

  it('rejects a missing body id', async () => {
    const { id: _, ...fields } = event();
    await rejects400(fields, { id: 'evt_1' });
  });

  it('rejects a numeric body id that only looks equal', async () => {
    await rejects400(event({ id: 123 }), { id: '123' });
  });
});

describe('recipient', () => {
  it('is trimmed and lower-cased', async () => {
    expect((await receiveOne(event({ recipient: '  Jane@Example.COM ' }))).recipient).toBe('jane@example.com');
  });

  it.each([['not an address'], [''], [null], [42]])('rejects recipient %j', async (recipient) => {
    await rejects400(event({ recipient }));
  });

  it('rejects a missing recipient', async () => {
    const { recipient: _, ...fields } = event();
    await rejects400(fields);
  });
});

describe('occurredAt', () => {
  it('defaults to the signed timestamp when absent', async () => {
    expect((await receiveOne(event())).occurredAt).toBe(Number(NOW_SECONDS) * 1000);
  });

  it('defaults to the signed timestamp when null', async () => {
    expect((await receiveOne(event({ occurredAt: null }))).occurredAt).toBe(Number(NOW_SECONDS) * 1000);
  });

  it.each([
    ['ISO-8601 UTC', '2023-11-14T22:13:15Z', Date.parse('2023-11-14T22:13:15Z')],
    ['ISO-8601 with offset and fraction', '2023-11-14T23:13:15.250+01:00', Date.parse('2023-11-14T22:13:15.250Z')],
    ['epoch seconds', 1699999995, 1699999995000],
    ['epoch milliseconds', 1699999995123, 1699999995123],
  ])('accepts %s', async (_, occurredAt, expected) => {
    expect((await receiveOne(event({ occurredAt }))).occurredAt).toBe(expected);
  });

  it.each([['yesterday'], [true], [-5], [{}]])('rejects occurredAt %j', async (occurredAt) => {
    await rejects400(event({ occurredAt }));
  });
});

describe('body', () => {
  it('keeps the exact body as raw', async () => {
    const body = `{ "id": "evt_1",\n  "type": "complaint", "recipient": "jane@example.com" }\n`;
    const { events } = await generic().receive(
      request(body, signGenericBody('example-secret-do-not-use-0123456789', 'evt_1', NOW_SECONDS, body)),
    );
    expect(events[0]!.raw).toBe(body);
  });

  it('ignores fields it does not know (forward compatible)', async () => {
    expect((await receiveOne(event({ reason: '550 5.1.1', extra: { nested: true } }))).kind).toBe('hard_bounce');
  });

  it.each([
    ['a duplicate key', '{"id":"evt_1","type":"delivered","type":"hard_bounce","recipient":"jane@example.com"}'],
    [
      'a duplicate recipient',
      '{"id":"evt_1","type":"hard_bounce","recipient":"a@example.com","recipient":"b@example.com"}',
    ],
    ['invalid JSON', '{"id":"evt_1",'],
    ['a JSON array', '[{"id":"evt_1","type":"delivered","recipient":"jane@example.com"}]'],
  ])('rejects %s (400)', async (_, body) => {
    const req = request(body, signGenericBody('example-secret-do-not-use-0123456789', 'evt_1', NOW_SECONDS, body));
    await expect(generic().receive(req)).rejects.toBeInstanceOf(MalformedRequestError);
  });

  it('rejects a body that is not UTF-8 (400)', async () => {
    const body = Buffer.from([0x7b, 0xc3, 0x28, 0x7d]);
    const req = request(body, signGenericBody('example-secret-do-not-use-0123456789', 'evt_1', NOW_SECONDS, body));
    await expect(generic().receive(req)).rejects.toBeInstanceOf(MalformedRequestError);
  });
});

describe('sender (contract §5: optional, on the outcomes only)', () => {
  it('a null sender on an outcome counts under the provider as a whole, like an absent one', async () => {
    expect((await receiveOne(event({ sender: null }))).sender).toBe('generic');
  });

  it.each([[42], [true], [{ domain: 'example.com' }]])(
    'rejects a sender that is not text, %j (400)',
    async (sender) => {
      await rejects400(event({ sender }));
    },
  );
});

describe('genericDemo', () => {
  const credentials = genericDemo.createCredentials();
  const provider = genericProvider.create(providerDeps([credentials.credential], { nowMs: NOW_MS }));

  it('creates a fresh 64-hex-character secret, usable as the credential and the signing secret', () => {
    expect(credentials.credential).toMatch(/^[0-9a-f]{64}$/);
    expect(credentials.signingSecret).toBe(credentials.credential);
    expect(genericDemo.createCredentials().credential).not.toBe(credentials.credential);
  });

  it.each(KINDS)('signs a %s request the provider accepts as that kind', async (kind) => {
    const signed = genericDemo.sign(kind, 'demo.user@example.com', credentials, NOW_MS);
    expect(Object.keys(signed.headers).every((name) => name === name.toLowerCase())).toBe(true);
    const { events } = await provider.receive({ body: Buffer.from(signed.body), headers: signed.headers });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      kind,
      recipient: 'demo.user@example.com',
      eventId: signed.headers['x-event-id'],
      raw: signed.body,
    });
  });

  it('is refused with another demo secret', async () => {
    const signed = genericDemo.sign('unsubscribe', 'demo.user@example.com', genericDemo.createCredentials(), NOW_MS);
    await expect(provider.receive({ body: Buffer.from(signed.body), headers: signed.headers })).rejects.toMatchObject({
      status: 401,
    });
  });
});
