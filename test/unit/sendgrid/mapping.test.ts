/** One test per row of the SendGrid mapping table, each through a signed request and `receive`. */
import { describe, expect, it } from 'vitest';
import type { ActionableKind } from '../../../lambdas/core/event.js';
import { sampleSendgridEvent, sendgridDemo } from '../../../lib/demo/sendgrid.js';
import { NOW_MS, request } from '../support/provider.js';
import { CREDENTIALS, receiveSigned, sendgrid } from './support.js';

const EMAIL = 'Someone@Example.COM';

/** A realistic event of `base` kind with fields replaced. */
function event(fields: Record<string, unknown>, base: ActionableKind = 'delivered'): Record<string, unknown> {
  const e: Record<string, unknown> = { ...sampleSendgridEvent(base, EMAIL, NOW_MS), ...fields };
  for (const [k, v] of Object.entries(fields)) if (v === undefined) delete e[k];
  return e;
}

async function one(fields: Record<string, unknown>, base?: ActionableKind) {
  const events = await receiveSigned([event(fields, base)]);
  expect(events).toHaveLength(1);
  return events[0]!;
}

describe('SendGrid mapping', () => {
  it('delivered → delivered', async () => {
    const e = await one({ event: 'delivered' });
    expect(e).toMatchObject({
      kind: 'delivered',
      recipient: 'someone@example.com',
      detail: { providerEventType: 'delivered' },
    });
    expect(e.ignoredReason).toBeUndefined();
  });

  it('bounce + type "bounce" → hard_bounce, with status, reason, classification', async () => {
    const e = await one(
      {
        event: 'bounce',
        type: 'bounce',
        status: '5.1.1',
        reason: '550 5.1.1 no such user',
        bounce_classification: 'Invalid Address',
      },
      'hard_bounce',
    );
    expect(e.kind).toBe('hard_bounce');
    expect(e.detail).toEqual({
      bounceType: 'bounce',
      bounceSubType: 'Invalid Address',
      status: '5.1.1',
      diagnosticCode: '550 5.1.1 no such user',
      providerEventType: 'bounce',
    });
  });

  it('bounce + type "blocked" → soft_bounce', async () => {
    const e = await one({ event: 'bounce', type: 'blocked', status: '4.7.1' }, 'soft_bounce');
    expect(e).toMatchObject({ kind: 'soft_bounce', detail: { bounceType: 'blocked', status: '4.7.1' } });
  });

  it('bounce without a known type: the enhanced status class decides (5.x.x hard, else soft), never ignored', async () => {
    // SendGrid's documented bounce example has no `type` at all (test/fixtures/genuine/sendgrid/docs-bounce.json).
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ type: undefined, status: '5.0.0' }, 'hard_bounce'],
      [{ type: 'expired', status: '5.1.1' }, 'hard_bounce'],
      [{ type: undefined, status: '4.2.2' }, 'soft_bounce'],
      [{ type: undefined, status: undefined, reason: '550 no such user' }, 'hard_bounce'],
      [{ type: undefined, status: undefined, reason: '421 try later' }, 'soft_bounce'],
      [{ type: undefined, status: undefined, reason: 'unknown' }, 'soft_bounce'],
      [{ type: undefined, status: '5.0.0x' }, 'soft_bounce'],
    ];
    for (const [fields, kind] of cases) {
      const e = await one({ event: 'bounce', ...fields }, 'hard_bounce');
      expect([fields, e.kind]).toEqual([fields, kind]);
    }
  });

  it('a bounce missing `status` (seen in the wild) still maps, with no status in detail', async () => {
    const e = await one({ event: 'bounce', type: 'blocked', status: undefined }, 'soft_bounce');
    expect(e.kind).toBe('soft_bounce');
    expect(e.detail.status).toBeUndefined();
  });

  it('spamreport → complaint', async () => {
    expect((await one({ event: 'spamreport' })).kind).toBe('complaint');
  });

  it('unsubscribe → unsubscribe', async () => {
    expect((await one({ event: 'unsubscribe' })).kind).toBe('unsubscribe');
  });

  it('group_unsubscribe → unsubscribe', async () => {
    const e = await one({ event: 'group_unsubscribe', asm_group_id: 42 });
    expect(e).toMatchObject({ kind: 'unsubscribe', detail: { providerEventType: 'group_unsubscribe' } });
  });

  it('dropped "Bounced Address" → hard_bounce echo', async () => {
    const e = await one({ event: 'dropped', reason: 'Bounced Address' });
    expect(e).toMatchObject({ kind: 'hard_bounce', detail: { echo: true, diagnosticCode: 'Bounced Address' } });
  });

  it('dropped "Spam Reporting Address" → complaint echo', async () => {
    expect(await one({ event: 'dropped', reason: 'Spam Reporting Address' })).toMatchObject({
      kind: 'complaint',
      detail: { echo: true },
    });
  });

  it('dropped "Unsubscribed Address" → unsubscribe echo', async () => {
    expect(await one({ event: 'dropped', reason: 'Unsubscribed Address' })).toMatchObject({
      kind: 'unsubscribe',
      detail: { echo: true },
    });
  });

  it('dropped for any other reason → ignored', async () => {
    for (const reason of ['Invalid SMTPAPI header', 'Spam Content', 'Invalid', 'bounced address', undefined]) {
      const e = await one({ event: 'dropped', reason });
      expect(e.kind).toBe('ignored');
      expect(e.ignoredReason).toMatch(/not a suppression echo/);
      expect(e.detail.echo).toBeUndefined();
    }
  });

  it('a dropped reason that names an Object.prototype member is not a lookup hit', async () => {
    expect((await one({ event: 'dropped', reason: 'constructor' })).kind).toBe('ignored');
  });

  it.each([
    ['processed', /lifecycle/],
    ['deferred', /deferral/],
    ['open', /engagement/],
    ['click', /engagement/],
  ])('%s → ignored with a reason', async (name, reason) => {
    const e = await one({ event: name });
    expect(e.kind).toBe('ignored');
    expect(e.ignoredReason).toMatch(reason);
    expect(e.detail.providerEventType).toBe(name);
  });

  it('group_resubscribe → subscribe to the group topic; without a group id → ignored', async () => {
    expect(await one({ event: 'group_resubscribe', asm_group_id: 42 })).toMatchObject({
      kind: 'subscribe',
      topic: 'sendgrid:group:42',
    });
    expect(await one({ event: 'group_resubscribe' })).toMatchObject({
      kind: 'ignored',
      ignoredReason: 'group_resubscribe without a usable asm_group_id',
    });
  });

  it('unknown events (account_status_change, toString) → ignored', async () => {
    for (const name of ['account_status_change', 'toString', '']) {
      const e = await one({ event: name });
      expect(e).toMatchObject({ kind: 'ignored', ignoredReason: 'unknown SendGrid event type' });
    }
  });

  it('a custom arg named `type` on a non-bounce event does not become bounceType', async () => {
    const e = await one({ event: 'delivered', type: 'newsletter', bounce_classification: 'x' });
    expect(e.detail.bounceType).toBeUndefined();
    expect(e.detail.bounceSubType).toBeUndefined();
  });

  it('non-string detail fields are left out rather than coerced', async () => {
    const e = await one({ event: 'bounce', type: 'bounce', status: 550, reason: { text: 'x' } }, 'hard_bounce');
    expect(e.detail).toEqual({ bounceType: 'bounce', bounceSubType: 'Invalid Address', providerEventType: 'bounce' });
  });

  it('occurredAt is the event timestamp, never arrival time; milliseconds are recognized', async () => {
    expect((await one({ timestamp: 1700000000 })).occurredAt).toBe(1_700_000_000_000);
    expect((await one({ timestamp: 1591726752372 })).occurredAt).toBe(1_591_726_752_372);
  });

  it.each(['delivered', 'hard_bounce', 'soft_bounce', 'complaint', 'unsubscribe'] as const)(
    'the demo signer builds a %s that maps back to the same kind',
    async (kind) => {
      const signed = sendgridDemo.sign(kind, 'demo@example.com', CREDENTIALS, NOW_MS);
      const { events } = await sendgrid([CREDENTIALS.credential]).receive(request(signed.body, signed.headers));
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ kind, recipient: 'demo@example.com', provider: 'sendgrid' });
      expect(Object.keys(signed.headers).every((h) => h === h.toLowerCase())).toBe(true);
    },
  );
});

describe('SendGrid message ids', () => {
  it('an event without sg_message_id has no messageId key at all (an optional field is absent, never undefined)', async () => {
    const e = await one({ event: 'bounce', type: 'bounce', sg_message_id: undefined }, 'hard_bounce');
    expect(e.kind).toBe('hard_bounce');
    expect(Object.hasOwn(e, 'messageId')).toBe(false);
    const withId = await one({ event: 'bounce', type: 'bounce' }, 'hard_bounce');
    expect(typeof withId.messageId).toBe('string');
  });
});
