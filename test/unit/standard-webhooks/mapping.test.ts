/** Resend-vocabulary mapping (resend.md §2), one test per row, plus the per-recipient dedup rule. */
import { describe, expect, it } from 'vitest';
import { INVALID_RECIPIENT_REASON } from '../../../lambdas/core/classification.js';
import { MalformedRequestError } from '../../../lambdas/core/errors.js';
import type { ActionableKind } from '../../../lambdas/core/event.js';
import { standardWebhooksProvider } from '../../../lambdas/core/providers/standard-webhooks/index.js';
import { standardWebhooksDemo } from '../../../lib/demo/standard-webhooks.js';
import { NOW_MS, providerDeps } from '../support/provider.js';
import { MSG_ID, resendBody, signed, standard } from './support.js';

const CREATED_AT_MS = Date.parse('2025-01-15T11:59:58.123Z');

async function receive(body: string) {
  return (await standard().receive(signed(body))).events;
}

async function receiveOne(body: string) {
  const events = await receive(body);
  expect(events).toHaveLength(1);
  return events[0]!;
}

describe('email events', () => {
  it('email.delivered → delivered, eventId `${webhook-id}:${recipient}`, occurredAt from created_at, raw = body', async () => {
    const body = resendBody('email.delivered');
    expect(await receiveOne(body)).toEqual({
      provider: 'standard',
      eventId: `${MSG_ID}:delivered@resend.dev`,
      recipient: 'delivered@resend.dev',
      kind: 'delivered',
      occurredAt: CREATED_AT_MS,
      detail: { providerEventType: 'email.delivered' },
      messageId: '56761188-7520-42d8-8898-ff6fc54ce618',
      raw: body,
      // `data.from` is `Acme <onboarding@resend.dev>`: its domain is the sender.
      sender: 'resend.dev',
    });
  });

  it.each([
    ['Permanent', 'hard_bounce'],
    ['permanent', 'hard_bounce'],
    ['hard', 'hard_bounce'],
    ['HARD', 'hard_bounce'],
    [' Permanent ', 'hard_bounce'],
    ['Transient', 'soft_bounce'],
    ['Undetermined', 'soft_bounce'],
    ['soft', 'soft_bounce'],
    ['something-new', 'soft_bounce'],
  ])('email.bounced with bounce.type %j → %s', async (type, kind) => {
    const body = resendBody('email.bounced', { bounce: { type, subType: 'General', message: 'No such user' } });
    expect(await receiveOne(body)).toMatchObject({
      kind,
      detail: {
        providerEventType: 'email.bounced',
        bounceType: type,
        bounceSubType: 'General',
        diagnosticCode: 'No such user',
      },
    });
  });

  it('email.bounced without a bounce type → hard_bounce (Resend documents email.bounced as permanent)', async () => {
    expect((await receiveOne(resendBody('email.bounced'))).kind).toBe('hard_bounce');
    expect((await receiveOne(resendBody('email.bounced', { bounce: { message: 'm' } }))).kind).toBe('hard_bounce');
    expect((await receiveOne(resendBody('email.bounced', { bounce: { type: '', message: 'm' } }))).kind).toBe(
      'hard_bounce',
    );
  });

  it('email.bounced with a Transient, Undetermined or unknown type → soft_bounce', async () => {
    for (const type of ['Transient', 'Undetermined', 'undetermined', 'soft', 42]) {
      expect([type, (await receiveOne(resendBody('email.bounced', { bounce: { type } }))).kind]).toEqual([
        type,
        'soft_bounce',
      ]);
    }
  });

  it('email.bounced keeps a diagnosticCode array as text', async () => {
    const body = resendBody('email.bounced', {
      bounce: {
        type: 'Permanent',
        subType: 'General',
        message: 'm',
        diagnosticCode: ['smtp; 550 5.1.1 user unknown', 'second line'],
      },
    });
    expect((await receiveOne(body)).detail.diagnosticCode).toBe('smtp; 550 5.1.1 user unknown; second line');
  });

  it('email.complained → complaint', async () => {
    expect((await receiveOne(resendBody('email.complained'))).kind).toBe('complaint');
  });

  it('email.unsubscribed → unsubscribe', async () => {
    expect((await receiveOne(resendBody('email.unsubscribed'))).kind).toBe('unsubscribe');
  });

  it.each([
    'email.sent',
    'email.scheduled',
    'email.opened',
    'email.clicked',
    'email.delivery_delayed',
    'email.failed',
    'email.suppressed',
    'email.received',
    'domain.created',
    'suppression.added',
    'something.new',
  ])('%s → one ignored event keyed on the webhook-id', async (type) => {
    const event = await receiveOne(resendBody(type));
    expect(event).toMatchObject({ kind: 'ignored', eventId: MSG_ID, recipient: 'delivered@resend.dev' });
    expect(event.ignoredReason).toContain(type);
  });

  it('an ignored event does not insist on a shape: no data, no recipient', async () => {
    expect(await receiveOne('{"type":"domain.updated"}')).toMatchObject({
      kind: 'ignored',
      recipient: '',
      eventId: MSG_ID,
    });
  });
});

describe('contact events (how Resend unsubscribes arrive)', () => {
  const contact = (type: string, unsubscribed: unknown) =>
    JSON.stringify({
      type,
      created_at: '2025-01-15T11:59:58.123Z',
      data: { id: 'c-1', email: 'Steve@Example.com', unsubscribed, created_at: '2024-01-01T00:00:00Z' },
    });

  it.each(['contact.updated', 'contact.created'])(
    '%s with unsubscribed: true → unsubscribe on data.email',
    async (type) => {
      expect(await receiveOne(contact(type, true))).toMatchObject({
        kind: 'unsubscribe',
        recipient: 'steve@example.com',
        eventId: `${MSG_ID}:steve@example.com`,
        occurredAt: CREATED_AT_MS,
      });
    },
  );

  it.each([false, 'true', null])('contact.updated with unsubscribed: %j → ignored', async (value) => {
    expect((await receiveOne(contact('contact.updated', value))).kind).toBe('ignored');
  });

  it('contact.deleted → ignored', async () => {
    expect((await receiveOne(contact('contact.deleted', true))).kind).toBe('ignored');
  });
});

describe('recipients', () => {
  it('several recipients → one event each, eventId `${webhook-id}:${recipient}`, the same raw body', async () => {
    const body = resendBody('email.bounced', {
      to: ['a@example.com', 'B@Example.com', 'c@example.com'],
      bounce: { type: 'Permanent' },
    });
    const events = await receive(body);
    expect(events.map((e) => [e.eventId, e.recipient, e.kind])).toEqual([
      [`${MSG_ID}:a@example.com`, 'a@example.com', 'hard_bounce'],
      [`${MSG_ID}:b@example.com`, 'b@example.com', 'hard_bounce'],
      [`${MSG_ID}:c@example.com`, 'c@example.com', 'hard_bounce'],
    ]);
    expect(events.every((e) => e.raw === body)).toBe(true);
  });

  it('the same address twice (any case) → one event', async () => {
    const events = await receive(resendBody('email.complained', { to: ['a@example.com', ' A@EXAMPLE.COM'] }));
    expect(events.map((e) => e.eventId)).toEqual([`${MSG_ID}:a@example.com`]);
  });

  it('a single string `to` is one recipient', async () => {
    expect((await receiveOne(resendBody('email.delivered', { to: 'solo@example.com' }))).recipient).toBe(
      'solo@example.com',
    );
  });

  it('reads the address out of a display form', async () => {
    expect((await receiveOne(resendBody('email.delivered', { to: ['Jane Doe <Jane@Example.com>'] }))).recipient).toBe(
      'jane@example.com',
    );
  });

  it('a value that is not an address becomes one ignored event; the others still count', async () => {
    const events = await receive(
      resendBody('email.bounced', { to: ['ok@example.com', 'not an address', 42], bounce: { type: 'hard' } }),
    );
    expect(events.map((e) => [e.kind, e.recipient, e.eventId])).toEqual([
      ['hard_bounce', 'ok@example.com', `${MSG_ID}:ok@example.com`],
      ['ignored', '', MSG_ID],
    ]);
    expect(events[1]!.ignoredReason).toBe(INVALID_RECIPIENT_REASON);
  });

  it('no recipients at all → one ignored event', async () => {
    const events = await receive(resendBody('email.complained', { to: [] }));
    expect(events).toMatchObject([{ kind: 'ignored', eventId: MSG_ID, ignoredReason: INVALID_RECIPIENT_REASON }]);
  });
});

describe('occurredAt', () => {
  const body = (envelope: Record<string, unknown>, data: Record<string, unknown> = {}) =>
    JSON.stringify({ type: 'email.delivered', ...envelope, data: { to: ['a@example.com'], ...data } });

  it('prefers the envelope created_at', async () => {
    const event = await receiveOne(
      body(
        { created_at: '2025-01-15T11:59:00Z', timestamp: '2025-01-15T11:58:00Z' },
        { created_at: '2025-01-15T11:57:00Z' },
      ),
    );
    expect(event.occurredAt).toBe(Date.parse('2025-01-15T11:59:00Z'));
  });

  it('then the envelope timestamp (the Standard Webhooks payload recommendation)', async () => {
    const event = await receiveOne(body({ timestamp: '2025-01-15T11:58:00Z' }, { created_at: '2025-01-15T11:57:00Z' }));
    expect(event.occurredAt).toBe(Date.parse('2025-01-15T11:58:00Z'));
  });

  it('then data.created_at', async () => {
    expect((await receiveOne(body({}, { created_at: '2025-01-15T11:57:00Z' }))).occurredAt).toBe(
      Date.parse('2025-01-15T11:57:00Z'),
    );
  });

  it('and only then the signed webhook-timestamp', async () => {
    expect((await receiveOne(body({}))).occurredAt).toBe(NOW_MS);
  });

  it('skips an unparseable created_at on an actionable event: the next source, never a 400', async () => {
    expect(
      (await receiveOne(body({ created_at: 'yesterday' }, { created_at: '2025-01-15T11:57:00Z' }))).occurredAt,
    ).toBe(Date.parse('2025-01-15T11:57:00Z'));
    expect((await receiveOne(body({ created_at: 'yesterday' }))).occurredAt).toBe(NOW_MS);
  });
});

describe('malformed bodies (signed, so 400)', () => {
  it.each([
    ['no type', '{"data":{"to":["a@example.com"]}}'],
    ['a non-string type', '{"type":7,"data":{"to":["a@example.com"]}}'],
  ])('acknowledges %s as ignored (authentic: never a 4xx)', async (_, body) => {
    const { events } = await standard().receive(signed(body));
    expect(events.map((e) => [e.kind, e.ignoredReason, e.recipient])).toEqual([
      ['ignored', 'body has no event type', 'a@example.com'],
    ]);
  });

  it('acknowledges an actionable type without data as ignored: there is nobody to suppress', async () => {
    const { events } = await standard().receive(signed('{"type":"email.bounced"}'));
    expect(events.map((e) => [e.kind, e.ignoredReason, e.recipient])).toEqual([
      ['ignored', 'recipient is not an email address', ''],
    ]);
  });

  it.each([['a JSON array', '[{"type":"email.delivered"}]']])('rejects %s', async (_, body) => {
    await expect(standard().receive(signed(body))).rejects.toBeInstanceOf(MalformedRequestError);
  });
});

describe('standardWebhooksDemo', () => {
  const KINDS: ActionableKind[] = ['delivered', 'soft_bounce', 'hard_bounce', 'complaint', 'unsubscribe'];
  const credentials = standardWebhooksDemo.createCredentials();
  const provider = standardWebhooksProvider.create(providerDeps([credentials.credential]));

  it('creates a fresh whsec_ secret, usable as the credential and the signing secret', () => {
    expect(credentials.credential).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(credentials.signingSecret).toBe(credentials.credential);
    expect(standardWebhooksDemo.createCredentials().credential).not.toBe(credentials.credential);
  });

  it.each(KINDS)('signs a %s request the provider accepts as that kind', async (kind) => {
    const signedDemo = standardWebhooksDemo.sign(kind, 'demo.user@example.com', credentials, NOW_MS);
    expect(Object.keys(signedDemo.headers).every((name) => name === name.toLowerCase())).toBe(true);
    const { events } = await provider.receive({ body: Buffer.from(signedDemo.body), headers: signedDemo.headers });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ kind, recipient: 'demo.user@example.com', raw: signedDemo.body });
    expect(events[0]!.eventId).toBe(`${signedDemo.headers['webhook-id']}:demo.user@example.com`);
  });

  it('is refused with another demo secret', async () => {
    const signedDemo = standardWebhooksDemo.sign(
      'complaint',
      'demo.user@example.com',
      standardWebhooksDemo.createCredentials(),
      NOW_MS,
    );
    await expect(
      provider.receive({ body: Buffer.from(signedDemo.body), headers: signedDemo.headers }),
    ).rejects.toMatchObject({ status: 401 });
  });
});
