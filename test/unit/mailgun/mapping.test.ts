/** One test per row of the Mailgun mapping table, each through a signed body and `receive`. */
import { describe, expect, it } from 'vitest';
import type { ActionableKind } from '../../../lambdas/core/event.js';
import { sampleMailgunEventData, signMailgun } from '../../../lib/demo/mailgun.js';
import { NOW_MS } from '../support/provider.js';
import { KEY, mailgun, request } from './support.js';

function eventData(fields: Record<string, unknown>, base: ActionableKind = 'delivered'): Record<string, unknown> {
  const data: Record<string, unknown> = { ...sampleMailgunEventData(base, 'Someone@Example.com', NOW_MS), ...fields };
  for (const [k, v] of Object.entries(fields)) if (v === undefined) delete data[k];
  return data;
}

async function one(fields: Record<string, unknown>, base?: ActionableKind) {
  const text = JSON.stringify({ signature: signMailgun(KEY, NOW_MS), 'event-data': eventData(fields, base) });
  const { events } = await mailgun().provider.receive(request(text));
  expect(events).toHaveLength(1);
  expect(events[0]!.raw).toBe(text);
  return events[0]!;
}

async function refused(data: unknown) {
  const text = JSON.stringify({ signature: signMailgun(KEY, NOW_MS), 'event-data': data });
  await expect(mailgun().provider.receive(request(text))).rejects.toMatchObject({
    status: 400,
    code: 'malformed_request',
  });
}

describe('Mailgun mapping', () => {
  it('delivered → delivered, with eventId = id:timestamp and occurredAt from event-data', async () => {
    const e = await one({ event: 'delivered', id: 'abcDEF123', timestamp: 1736942398.641821 });
    expect(e).toMatchObject({
      provider: 'mailgun',
      kind: 'delivered',
      eventId: 'abcDEF123:1736942398.641821',
      occurredAt: 1736942398642,
      recipient: 'someone@example.com',
      detail: { status: '250', diagnosticCode: 'OK', providerEventType: 'delivered' },
    });
  });

  it('failed + permanent → hard_bounce, detail from delivery-status, severity and reason', async () => {
    const e = await one({ event: 'failed', severity: 'permanent', reason: 'bounce' }, 'hard_bounce');
    expect(e.kind).toBe('hard_bounce');
    expect(e.detail).toEqual({
      status: '5.1.1',
      diagnosticCode: '550 5.1.1 The email account that you tried to reach does not exist.',
      bounceType: 'permanent',
      bounceSubType: 'bounce',
      providerEventType: 'failed',
    });
  });

  it('failed + permanent + suppress-bounce → hard_bounce echo', async () => {
    const e = await one(
      {
        severity: 'permanent',
        reason: 'suppress-bounce',
        'delivery-status': { code: 605, message: '', description: 'Not delivering to previously bounced address' },
      },
      'hard_bounce',
    );
    expect(e).toMatchObject({
      kind: 'hard_bounce',
      detail: {
        echo: true,
        status: '605',
        diagnosticCode: 'Not delivering to previously bounced address',
        bounceSubType: 'suppress-bounce',
      },
    });
  });

  it('failed + permanent + suppress-unsubscribe → unsubscribe echo', async () => {
    expect(await one({ severity: 'permanent', reason: 'suppress-unsubscribe' }, 'hard_bounce')).toMatchObject({
      kind: 'unsubscribe',
      detail: { echo: true },
    });
  });

  it('failed + permanent + suppress-complaint → complaint echo', async () => {
    expect(await one({ severity: 'permanent', reason: 'suppress-complaint' }, 'hard_bounce')).toMatchObject({
      kind: 'complaint',
      detail: { echo: true },
    });
  });

  it('failed + permanent with another or no reason → plain hard_bounce (no echo)', async () => {
    for (const reason of ['generic', 'old', undefined, 'toString']) {
      const e = await one({ severity: 'permanent', reason }, 'hard_bounce');
      expect(e.kind).toBe('hard_bounce');
      expect(e.detail.echo).toBeUndefined();
    }
  });

  it('failed + temporary → soft_bounce', async () => {
    const e = await one({ severity: 'temporary' }, 'soft_bounce');
    expect(e).toMatchObject({ kind: 'soft_bounce', detail: { bounceType: 'temporary', status: '4.2.2' } });
  });

  it('failed with an unknown or missing severity → ignored', async () => {
    for (const severity of ['fatal', undefined]) {
      const e = await one({ severity }, 'hard_bounce');
      expect(e.kind).toBe('ignored');
      expect(e.ignoredReason).toMatch(/severity/);
    }
  });

  it('complained → complaint', async () => {
    expect((await one({ event: 'complained' })).kind).toBe('complaint');
  });

  it('unsubscribed → unsubscribe', async () => {
    expect((await one({ event: 'unsubscribed' })).kind).toBe('unsubscribe');
  });

  it.each([
    ['accepted', /lifecycle/],
    ['opened', /engagement/],
    ['clicked', /engagement/],
    ['rejected', /refused the send/],
    ['stored', /stored/],
    ['permanent_fail', /unknown Mailgun event/],
    ['constructor', /unknown Mailgun event/],
  ])('%s → ignored with a reason', async (name, reason) => {
    const e = await one({ event: name });
    expect(e.kind).toBe('ignored');
    expect(e.ignoredReason).toMatch(reason);
    expect(e.detail.providerEventType).toBe(name);
  });

  it('only failures carry bounceType/bounceSubType', async () => {
    const e = await one({ event: 'delivered', severity: 'permanent', reason: 'x' });
    expect(e.detail.bounceType).toBeUndefined();
    expect(e.detail.bounceSubType).toBeUndefined();
  });

  it('delivery-status: message wins over description, the plain code stands in for a missing enhanced code', async () => {
    const e = await one({
      'delivery-status': { code: 421, 'enhanced-code': '', message: '', description: 'Try later' },
    });
    expect(e.detail).toMatchObject({ status: '421', diagnosticCode: 'Try later' });
    const none = await one({ 'delivery-status': 'n/a' });
    expect(none.detail).toEqual({ providerEventType: 'delivered' });
  });

  it('an unusable recipient makes the event ignored rather than refusing the request', async () => {
    const e = await one({ event: 'failed', severity: 'permanent', recipient: 'not an address' }, 'hard_bounce');
    expect(e).toMatchObject({ kind: 'ignored', recipient: '', ignoredReason: 'recipient is not an email address' });
    const missing = await one({ event: 'rejected', recipient: undefined });
    expect(missing).toMatchObject({ kind: 'ignored', recipient: '' });
  });
});

describe('Mailgun event-data structure (400)', () => {
  it('refuses a missing or non-object event-data', async () => {
    await refused(undefined);
    await refused([eventData({})]);
    await refused('delivered');
  });

  it('refuses event-data without a string event', async () => {
    await refused(eventData({ event: undefined }));
    await refused(eventData({ event: 3 }));
  });

  it('refuses event-data without a usable id', async () => {
    await refused(eventData({ id: undefined }));
    await refused(eventData({ id: '' }));
    await refused(eventData({ id: 7 }));
    await refused(eventData({ id: 'x'.repeat(101) }));
  });

  it('refuses event-data without a usable timestamp', async () => {
    await refused(eventData({ timestamp: undefined }));
    await refused(eventData({ timestamp: 'soon' }));
    await refused(eventData({ timestamp: -5 }));
  });
});
