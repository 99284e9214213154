/**
 * Content keys: what they are made of, and the edge using them for providers whose own event ids
 * differ between copies of one event (one row, one message, one evidence entry per event).
 */
import { describe, expect, it } from 'vitest';
import type { NormalizedEvent } from '../../../lambdas/core/event.js';
import { CONTENT_KEY_PREFIX, contentEventId, keyedByContent } from '../../../lambdas/core/pipeline/content-key.js';
import { PROVIDERS } from '../../../lambdas/core/providers/index.js';
import { edgeWith, event, fakeProvider, request } from './fakes.js';

const bounce = (overrides: Partial<NormalizedEvent> = {}): NormalizedEvent & { messageId: string } =>
  event({
    kind: 'soft_bounce',
    messageId: 'msg-1',
    detail: { providerEventType: 'bounce', bounceType: 'blocked' },
    ...overrides,
  }) as NormalizedEvent & {
    messageId: string;
  };

describe('contentEventId', () => {
  it('is the same for copies that differ only in the provider id, the raw bytes and the detail text', () => {
    const key = contentEventId(bounce());
    expect(key.startsWith(CONTENT_KEY_PREFIX)).toBe(true);
    expect(key).toMatch(/^c1\.[A-Za-z0-9_-]{43}$/);
    expect(
      contentEventId(
        bounce({
          eventId: 'another-sg-event-id',
          raw: '{"other":"bytes"}',
          detail: { providerEventType: 'bounce', diagnosticCode: 'x' },
        }),
      ),
    ).toBe(key);
  });

  it.each([
    ['the message', { messageId: 'msg-2' }],
    ['the recipient', { recipient: 'b@example.com' }],
    ['the kind', { kind: 'hard_bounce' as const }],
    ['the provider event type', { detail: { providerEventType: 'dropped' } }],
    ['the topic', { kind: 'unsubscribe' as const, topic: 'sendgrid:group:1' }],
    ['the event time, by a millisecond', { occurredAt: 1_700_000_000_001 }],
  ])('changes with %s', (_what, overrides) => {
    expect(contentEventId(bounce(overrides))).not.toBe(contentEventId(bounce()));
  });

  it('two topics of one message at the same second stay two events (a preference page unchecking two groups)', () => {
    const a = bounce({ kind: 'unsubscribe', topic: 'sendgrid:group:1' });
    const b = bounce({ kind: 'unsubscribe', topic: 'sendgrid:group:2' });
    expect(contentEventId(a)).not.toBe(contentEventId(b));
    // No event type at all is one value, not a wildcard.
    expect(contentEventId(bounce({ detail: {} }))).not.toBe(contentEventId(bounce()));
  });
});

describe('keyedByContent', () => {
  it('re-keys an actionable event that names its message, changing nothing else', () => {
    const original = bounce();
    const keyed = keyedByContent(original);
    expect(keyed).toEqual({ ...original, eventId: contentEventId(original) });
    expect(original.eventId).toBe('e1');
  });

  it('leaves an event without a message id, and an ignored event, as they are', () => {
    const alone = event({ kind: 'soft_bounce' });
    expect(keyedByContent(alone)).toBe(alone);
    const ignored = event({ kind: 'ignored', ignoredReason: 'open', messageId: 'msg-1' });
    expect(keyedByContent(ignored)).toBe(ignored);
  });

  it('is what exactly SES and SendGrid ask for', () => {
    expect(
      PROVIDERS.filter((p) => p.keysByContent === true)
        .map((p) => p.name)
        .sort(),
    ).toEqual(['sendgrid', 'ses']);
  });
});

describe('the edge, for a provider keyed by content', () => {
  const contentKeyed = () => {
    const created = { count: 0, credentials: [] as string[][] };
    return edgeWith({ providers: [{ ...fakeProvider(created), keysByContent: true }] });
  };
  const copy = (n: number) => bounce({ eventId: `sg-event-${n}`, raw: JSON.stringify({ copy: n }) });

  it('a copy under a new provider id, in a later request, is a duplicate: one row, the copy only re-sent', async () => {
    const { edge, inbox, queue } = contentKeyed();
    expect(await edge.receive('fake', request({ events: [copy(1)] }))).toMatchObject({
      status: 200,
      body: { admitted: 1, duplicates: 0 },
    });
    expect(await edge.receive('fake', request({ events: [copy(2)] }))).toMatchObject({
      status: 200,
      body: { admitted: 0, duplicates: 1 },
    });
    const pk = `fake#${contentEventId(copy(1))}`;
    expect([...inbox.rows.keys()]).toEqual([pk]);
    // Enqueue before store still holds; both messages carry the same event id, so the consumer adds one entry.
    expect(queue.sent.map((m) => [m.pk, m.event.eventId])).toEqual([
      [pk, contentEventId(copy(1))],
      [pk, contentEventId(copy(1))],
    ]);
    expect(inbox.rows.get(pk)!.events[0]!.raw).toBe(JSON.stringify({ copy: 1 }));
  });

  it('copies inside one request are answered as one: sent once, stored once', async () => {
    const { edge, inbox, queue } = contentKeyed();
    const other = bounce({ eventId: 'sg-other', messageId: 'msg-2', raw: '{"other":1}' });
    const response = await edge.receive('fake', request({ events: [copy(1), copy(2), other, copy(3)] }));
    expect(response).toEqual({ status: 200, body: { ok: true, received: 4, admitted: 2, duplicates: 2, ignored: 0 } });
    expect(queue.sent).toHaveLength(2);
    expect(inbox.rows.size).toBe(2);
    expect(inbox.storeCalls.map((c) => c.queuedBefore)).toEqual([2, 2]);
  });

  it('an event without a message id keeps the provider id as its key', async () => {
    const { edge, inbox } = contentKeyed();
    await edge.receive('fake', request({ events: [event({ eventId: 'plain' })] }));
    expect([...inbox.rows.keys()]).toEqual(['fake#plain']);
  });

  it('a provider not keyed by content keeps its ids: the same content under two ids is two events', async () => {
    const { edge, inbox } = edgeWith();
    await edge.receive('fake', request({ events: [copy(1)] }));
    expect(await edge.receive('fake', request({ events: [copy(2)] }))).toMatchObject({
      body: { admitted: 1, duplicates: 0 },
    });
    expect([...inbox.rows.keys()]).toEqual(['fake#sg-event-1', 'fake#sg-event-2']);
  });
});
