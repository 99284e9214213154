/**
 * The soft-bounce budget counts messages: the worked examples (genuine Mailgun temporary failures,
 * one message retried versus three messages), the per-message cap, records written before message
 * ids were kept, and the strike arithmetic itself.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { NormalizedEvent } from '../../../lambdas/core/event.js';
import { mailgunEvent } from '../../../lambdas/core/providers/mailgun/map.js';
import {
  applyEvent,
  DEFAULT_RATCHET_POLICY,
  mergeRecords,
  type RatchetPolicy,
  reactivate,
  type SuppressionRecord,
} from '../../../lambdas/core/suppression/index.js';
import { softBouncesPerMessage } from '../../../lambdas/core/suppression/policy.js';
import { earliestCrossingStart, groupStrikes, strikeKey } from '../../../lambdas/core/suppression/soft-bounce.js';
import { DAY, ev, T0 } from './support.js';

const FIXTURES = new URL('../../fixtures/', import.meta.url);
const TEMPORARY = JSON.parse(
  readFileSync(new URL('genuine/mailgun/symfony-temporary-failure.json', FIXTURES), 'utf8'),
) as { 'event-data': Record<string, any> };

/**
 * Symfony's genuine Mailgun temporary failure, as attempt `attempt` of the message `messageId`: a
 * new event id and timestamp per attempt, as Mailgun sends them (one `failed` event per attempt).
 */
function mailgunAttempt(messageId: string, attempt: number, atMs: number): NormalizedEvent {
  const data = structuredClone(TEMPORARY['event-data']);
  data.id = `attempt-${messageId.slice(0, 8)}-${attempt}`;
  data.timestamp = atMs / 1000;
  data['delivery-status']['attempt-no'] = attempt;
  data.message.headers['message-id'] = messageId;
  return mailgunEvent(data, JSON.stringify(data));
}

const apply = (events: NormalizedEvent[], policy: RatchetPolicy = DEFAULT_RATCHET_POLICY, start?: SuppressionRecord) =>
  events.reduce<SuppressionRecord | undefined>((record, event) => applyEvent(record, event, policy).record, start);

const GREYLISTED = '20130503182626.18666.16540@app.symfony.com';
const MINUTE = 60_000;

describe('the worked example (Mailgun, genuine shapes)', () => {
  it('five temporary failures of one message (greylisting), then nothing: active, one strike', () => {
    // Mailgun's schedule: 10 min, 10 min, 15 min, 30 min apart.
    const times = [0, 10, 20, 35, 65].map((m) => T0 + m * MINUTE);
    const events = times.map((t, i) => mailgunAttempt(GREYLISTED, i + 1, t));
    expect(new Set(events.map((e) => e.eventId)).size).toBe(5);
    expect(events.every((e) => e.kind === 'soft_bounce' && e.messageId === GREYLISTED)).toBe(true);
    const record = apply(events)!;
    expect(record.status).toBe('active');
    expect(record.reasons).toEqual([]);
    expect(record.softBounceLimitAt).toBeUndefined();
    // Every attempt is kept as evidence, each naming its message.
    expect(Object.values(record.softBounces).map((e) => [e.messageId, e.occurredAt])).toEqual(
      times.map((t) => [GREYLISTED, t]),
    );
  });

  it('three distinct messages each soft-bouncing once inside the window: suppressed with soft_bounce_limit, dated by the first', () => {
    const events = ['a@mg.example.com', 'b@mg.example.com', 'c@mg.example.com'].map((m, i) =>
      mailgunAttempt(m, 1, T0 + i * DAY),
    );
    const record = apply(events)!;
    expect(record.status).toBe('suppressed');
    expect(record.reasons).toEqual(['soft_bounce_limit']);
    expect(record.softBounceLimitAt).toBe(T0);
    expect(record.suppressedAt).toBe(T0);
  });

  it('the same three with a delivery dated after the second: active', () => {
    const [a, b, c] = ['a@mg.example.com', 'b@mg.example.com', 'c@mg.example.com'].map((m, i) =>
      mailgunAttempt(m, 1, T0 + i * DAY),
    );
    const delivered = ev('delivered', T0 + 1.5 * DAY, {
      provider: 'mailgun',
      recipient: 'alice@example.com',
      messageId: 'd@mg.example.com',
    });
    for (const order of [
      [a!, b!, delivered, c!],
      [delivered, c!, b!, a!],
      [c!, a!, delivered, b!],
    ]) {
      const record = apply(order)!;
      expect(record.status).toBe('active');
      expect(Object.keys(record.softBounces)).toHaveLength(1);
    }
  });

  it('the greylisted message plus two other messages inside the window suppress: three strikes, not seven', () => {
    const greylisting = [0, 10, 20, 35, 65].map((m, i) => mailgunAttempt(GREYLISTED, i + 1, T0 + m * MINUTE));
    const others = [mailgunAttempt('b@mg.example.com', 1, T0 + 2 * DAY)];
    expect(apply([...greylisting, ...others])!.status).toBe('active');
    const record = apply([...greylisting, ...others, mailgunAttempt('c@mg.example.com', 1, T0 + 3 * DAY)])!;
    expect(record.reasons).toEqual(['soft_bounce_limit']);
    expect(record.softBounceLimitAt).toBe(T0);
  });

  it('the window counts messages: three strikes spread wider than the window do not suppress', () => {
    const events = ['a', 'b', 'c'].map((m, i) => mailgunAttempt(`${m}@mg.example.com`, 1, T0 + i * 16 * DAY));
    expect(apply(events)!.status).toBe('active');
  });
});

describe('duplicates under new event ids', () => {
  it('copies of a soft bounce under new ids change no strike, no status and no crossing date', () => {
    const a = ev('soft_bounce', T0, { provider: 'sendgrid', messageId: 'msg-a' });
    const b = ev('soft_bounce', T0 + DAY, { provider: 'sendgrid', messageId: 'msg-b' });
    const base = apply([a, b])!;
    const copies = [a, b, a].map((e) => ({ ...e, eventId: `${e.eventId}-copy-${Math.random()}` }));
    const withCopies = apply(copies, DEFAULT_RATCHET_POLICY, base)!;
    expect(withCopies.status).toBe('active');
    expect(withCopies.softBounceLimitAt).toBeUndefined();
    const third = ev('soft_bounce', T0 + 2 * DAY, { provider: 'sendgrid', messageId: 'msg-c' });
    expect(apply([third], DEFAULT_RATCHET_POLICY, base)!.softBounceLimitAt).toBe(
      apply([third], DEFAULT_RATCHET_POLICY, withCopies)!.softBounceLimitAt,
    );
  });

  it('one message id means one strike per provider: the same id from two providers is two messages', () => {
    const events = [
      ev('soft_bounce', T0, { provider: 'sendgrid', messageId: 'same' }),
      ev('soft_bounce', T0 + 1, { provider: 'ses', messageId: 'same' }),
      ev('soft_bounce', T0 + 2, { provider: 'ses', messageId: 'same' }),
    ];
    expect(apply(events)!.status).toBe('active');
    expect(apply([...events, ev('soft_bounce', T0 + 3, { provider: 'mailgun', messageId: 'same' })])!.reasons).toEqual([
      'soft_bounce_limit',
    ]);
  });

  it('events without a message id each count on their own, as before', () => {
    const record = apply([ev('soft_bounce', T0), ev('soft_bounce', T0 + 1), ev('soft_bounce', T0 + 2)])!;
    expect(record.reasons).toEqual(['soft_bounce_limit']);
  });
});

describe('records written before message ids were kept', () => {
  const OLD = JSON.parse(
    readFileSync(new URL('suppression/record-before-message-ids.json', FIXTURES), 'utf8'),
  ) as SuppressionRecord;
  const email = OLD.email;

  it('the fixture really is an old item: no entry names a message', () => {
    expect(Object.values(OLD.softBounces)).toHaveLength(2);
    expect(Object.values(OLD.softBounces).every((e) => !('messageId' in e))).toBe(true);
  });

  it('each old entry counts alone: one more soft bounce of any message is the third strike', () => {
    const next = applyEvent(
      OLD,
      ev('soft_bounce', OLD.lastEventAt! + MINUTE, { recipient: email, provider: 'mailgun', messageId: GREYLISTED }),
    );
    expect(next.effect).toBe('suppressed');
    expect(next.record.softBounceLimitAt).toBe(Object.values(OLD.softBounces)[0]!.occurredAt);
    // The old entries are kept as they were, next to the new one.
    for (const [key, entry] of Object.entries(OLD.softBounces)) expect(next.record.softBounces[key]).toEqual(entry);
  });

  it('a delivery prunes old entries as before, and an untouched old item reads back unchanged', () => {
    const delivered = applyEvent(OLD, ev('delivered', OLD.lastEventAt! + 1, { recipient: email }));
    expect(delivered.record.softBounces).toEqual({});
    const { version: _v, updatedAt: _u, ...stored } = OLD as SuppressionRecord & { version: number; updatedAt: number };
    expect(mergeRecords(OLD, OLD)).toEqual(stored);
  });
});

describe('the per-message cap', () => {
  it('keeps the newest N entries of a message (N from the policy), and the budget still counts it once', () => {
    const perMessage = softBouncesPerMessage(DEFAULT_RATCHET_POLICY);
    expect(perMessage).toBe(8);
    const events = Array.from({ length: 12 }, (_, i) => mailgunAttempt(GREYLISTED, i + 1, T0 + i * 10 * MINUTE));
    const record = apply(events)!;
    expect(record.status).toBe('active');
    expect(Object.values(record.softBounces).map((e) => e.occurredAt)).toEqual(
      events.slice(4).map((e) => e.occurredAt),
    );
  });

  it('a message at its cap counts in every window that starts at or before its newest bounce', () => {
    // Two entries per message under this policy (soft cap 6, limit 3).
    const policy: RatchetPolicy = { softBounceLimit: 3, softBounceWindowMs: 10, evidencePerKind: 5 };
    expect(softBouncesPerMessage(policy)).toBe(2);
    const early = [ev('soft_bounce', 0, { messageId: 'b' }), ev('soft_bounce', 1, { messageId: 'c' })];
    const oneLate = [ev('soft_bounce', 100, { messageId: 'a' })];
    expect(apply([...early, ...oneLate], policy)!.status).toBe('active');
    // Full (two kept): its older bounces may have been let go, anywhere before its oldest kept one.
    const record = apply([...early, ...oneLate, ev('soft_bounce', 101, { messageId: 'a' })], policy)!;
    expect(record.reasons).toEqual(['soft_bounce_limit']);
    expect(record.softBounceLimitAt).toBe(0);
    // A reactivation after the run's start clears it, like any other.
    expect(reactivate(record, { actor: 'ops', reason: 'checked', at: 50 }, policy).record.status).toBe('active');
  });

  it.each([
    [{ softBounceLimit: 1, softBounceWindowMs: 1 }, 8],
    [{ softBounceLimit: 2, softBounceWindowMs: 1 }, 8],
    [{ softBounceLimit: 3, softBounceWindowMs: 1 }, 8],
    [{ softBounceLimit: 4, softBounceWindowMs: 1 }, 6],
    [{ softBounceLimit: 5, softBounceWindowMs: 1 }, 4],
    [{ softBounceLimit: 20, softBounceWindowMs: 1 }, 2],
    [{ softBounceLimit: 2, softBounceWindowMs: 1, evidencePerKind: 4 }, 3],
  ] as Array<[RatchetPolicy, number]>)(
    '%j keeps %i per message, so a full cap always spans the limit in messages',
    (policy, perMessage) => {
      expect(softBouncesPerMessage(policy)).toBe(perMessage);
      const cap = Math.max(policy.evidencePerKind ?? 20, 2 * policy.softBounceLimit);
      expect(Math.ceil(cap / perMessage)).toBeGreaterThanOrEqual(policy.softBounceLimit);
    },
  );
});

describe('evidence keeps the message id', () => {
  it('on soft-bounce and suppressing entries, and reads it back', () => {
    const record = apply([
      ev('soft_bounce', T0, { messageId: 'm-1' }),
      ev('hard_bounce', T0 + 1, { id: 'h', messageId: 'm-2' }),
    ])!;
    expect(Object.values(record.softBounces)[0]!.messageId).toBe('m-1');
    expect(record.evidence['hard_bounce:ses#h']!.messageId).toBe('m-2');
    expect(mergeRecords(record, record)).toEqual(record);
    const malformed = {
      ...record,
      evidence: { k: { kind: 'complaint', occurredAt: 1, provider: 'ses', messageId: 7 } },
    };
    expect(() => applyEvent(malformed as unknown as SuppressionRecord, ev('delivered', T0))).toThrow(
      'evidence messageId',
    );
  });

  it('refuses an event whose messageId is not a message id (a caller bug)', () => {
    for (const messageId of ['', 'has space', 'x'.repeat(257), 'caf\u00e9', 7]) {
      expect(() => applyEvent(undefined, { ...ev('soft_bounce', T0), messageId } as NormalizedEvent)).toThrow(
        'event messageId is not a message id',
      );
    }
    expect(applyEvent(undefined, ev('soft_bounce', T0, { messageId: 'x'.repeat(256) })).record.softBounces).not.toEqual(
      {},
    );
  });
});

describe('strike arithmetic', () => {
  const entry = (messageId?: string, provider = 'ses') => ({
    kind: 'soft_bounce' as const,
    occurredAt: 0,
    provider,
    ...(messageId === undefined ? {} : { messageId }),
  });

  it('strikeKey: by provider and message id; an entry without one is its own strike', () => {
    expect(strikeKey('ses#1', entry('m'))).toBe(strikeKey('ses#2', entry('m')));
    expect(strikeKey('ses#1', entry('m'))).not.toBe(strikeKey('ses#1', entry('m', 'sendgrid')));
    expect(strikeKey('ses#1', entry())).not.toBe(strikeKey('ses#2', entry()));
    // An id-less key can never collide with a message key, whatever the strings contain.
    expect(strikeKey(`m${JSON.stringify(['ses', 'm'])}`.slice(1), entry())).not.toBe(strikeKey('x', entry('m')));
  });

  it('groupStrikes keeps the newest per message and marks only full message strikes', () => {
    const keyed = (key: string, at: number, messageId?: string) =>
      [key, { ...entry(messageId), occurredAt: at }] as [string, ReturnType<typeof entry>];
    const newestFirst = [
      keyed('a3', 9, 'a'),
      keyed('x', 8),
      keyed('a2', 7, 'a'),
      keyed('a1', 5, 'a'),
      keyed('b1', 4, 'b'),
    ];
    const { kept, strikes } = groupStrikes(newestFirst, 2);
    expect(kept.map(([k]) => k)).toEqual(['a3', 'x', 'a2', 'b1']);
    expect(strikes).toEqual([
      { times: [7, 9], full: true },
      { times: [8], full: false },
      { times: [4], full: false },
    ]);
    // One entry per message with a cap of 1: full; an id-less entry never is.
    expect(groupStrikes([keyed('y', 1)], 1).strikes).toEqual([{ times: [1], full: false }]);
    expect(groupStrikes([keyed('b', 1, 'b')], 1).strikes).toEqual([{ times: [1], full: true }]);
  });

  it.each([
    [
      'a strike spread over the window counts by the bounce inside it, dated by its first',
      [[0, 20], [25], [28]],
      3,
      10,
      0,
    ],
    ['two strikes are not three however many bounces', [[1, 2, 3], [4]], 3, 10, undefined],
    ['the window edge is inclusive', [[0], [5], [10]], 3, 10, 0],
    ['one past the edge is outside', [[0], [5], [11]], 3, 10, undefined],
    ['the earliest run wins', [[0], [50], [51], [52]], 3, 5, 50],
    ['limit 1: the first bounce', [[7, 9]], 1, 0, 7],
    [
      'a later span can date an earlier run: the minimum over every span, not the first found',
      [[10], [11], [12], [0, 20], [21], [22]],
      3,
      2,
      0,
    ],
  ] as const)('%s', (_name, times, limit, window, start) => {
    expect(
      earliestCrossingStart(
        times.map((t) => ({ times: [...t], full: false })),
        limit,
        window,
      ),
    ).toBe(start);
  });

  it('a full strike counts up to its newest bounce, and only then; a non-full one does not', () => {
    const others = [
      { times: [0], full: false },
      { times: [1], full: false },
    ];
    expect(earliestCrossingStart([...others, { times: [40, 41], full: true }], 3, 5)).toBe(0);
    expect(earliestCrossingStart([...others, { times: [40, 41], full: false }], 3, 5)).toBeUndefined();
    // Starting after its newest bounce, it is not in the window.
    expect(
      earliestCrossingStart(
        [
          { times: [50], full: false },
          { times: [51], full: false },
          { times: [40, 41], full: true },
        ],
        3,
        5,
      ),
    ).toBeUndefined();
    expect(
      earliestCrossingStart(
        [
          { times: [41], full: false },
          { times: [42], full: false },
          { times: [40, 41], full: true },
        ],
        3,
        5,
      ),
    ).toBe(40);
  });
});
