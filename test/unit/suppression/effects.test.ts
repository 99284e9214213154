/**
 * The effect each operation reports (applyEvent, the manual actions, importEntry), the exact evidence
 * it stores, and the messages of the caller-bug guards. One scenario per effect edge.
 */
import { describe, expect, it } from 'vitest';
import type { NormalizedEvent } from '../../../lambdas/core/event.js';
import {
  applyEvent,
  changeTopicManually,
  emptyRecord,
  type ImportedEntry,
  importEntry,
  type RatchetPolicy,
  reactivate,
  type SuppressionRecord,
  suppressManually,
} from '../../../lambdas/core/suppression/index.js';
import { EMAIL, ev } from './support.js';

const BAD_POLICY = { softBounceLimit: 0, softBounceWindowMs: 1 } as RatchetPolicy;
const ONE_PER_KIND: RatchetPolicy = { softBounceLimit: 3, softBounceWindowMs: 1000, evidencePerKind: 1 };
const ops = (at: number) => ({ actor: 'ops', reason: 'r', at });

describe('applyEvent guards', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['an unknown kind', { kind: 'bogus' }, 'unknown event kind'],
    ['an ignored event', { kind: 'ignored' }, 'ignored events never reach the suppression ratchet'],
    ['an empty provider', { provider: '' }, 'event has no provider'],
    ['a numeric provider', { provider: 5 }, 'event has no provider'],
    ['an empty eventId', { eventId: '' }, 'event has no eventId'],
    ['a missing eventId', { eventId: undefined }, 'event has no eventId'],
    ['an empty recipient', { recipient: '' }, 'event has no recipient'],
    ['a numeric recipient', { recipient: 1 }, 'event has no recipient'],
    ['a NaN time', { occurredAt: Number.NaN }, 'event has no occurredAt'],
    ['a string time', { occurredAt: '1' }, 'event has no occurredAt'],
  ];
  it.each(cases)('refuses %s', (_name, overrides, message) => {
    const event = { ...ev('complaint', 1), ...overrides } as NormalizedEvent;
    expect(() => applyEvent(undefined, event)).toThrow(new TypeError(message));
  });

  it('refuses an event for another address than the record', () => {
    expect(() => applyEvent(emptyRecord('other@example.com'), ev('complaint', 1))).toThrow(
      new TypeError('event recipient does not match the suppression record'),
    );
  });
});

describe('applyEvent evidence', () => {
  it('keeps non-empty detail strings, clipped, and a boolean echo', () => {
    const detail = {
      bounceType: '',
      bounceSubType: 'General',
      status: 's'.repeat(60),
      diagnosticCode: 'd'.repeat(200),
      echo: false,
    };
    const { record } = applyEvent(undefined, ev('hard_bounce', 1, { id: 'h', detail }));
    expect(record.evidence).toStrictEqual({
      'hard_bounce:ses#h': {
        kind: 'hard_bounce',
        occurredAt: 1,
        provider: 'ses',
        bounceSubType: 'General',
        status: 's'.repeat(48),
        diagnosticCode: 'd'.repeat(160),
        echo: false,
      },
    });
  });

  it('ignores a non-boolean echo', () => {
    const detail = { echo: 'true' } as unknown as NormalizedEvent['detail'];
    const { record } = applyEvent(undefined, ev('complaint', 1, { id: 'c', detail }));
    expect(record.evidence).toStrictEqual({ 'complaint:ses#c': { kind: 'complaint', occurredAt: 1, provider: 'ses' } });
  });

  it('stores a topic entry with only kind, time, provider and the provider event type when there is one', () => {
    const withType = {
      ...ev('unsubscribe', 2, { id: 'u', detail: { providerEventType: 'group_unsubscribe', bounceType: 'x' } }),
      topic: 'news',
    };
    expect(applyEvent(undefined, withType).record.topics['news']!.evidence).toStrictEqual({
      'unsubscribe:ses#u': {
        kind: 'unsubscribe',
        occurredAt: 2,
        provider: 'ses',
        providerEventType: 'group_unsubscribe',
      },
    });
    const without = { ...ev('unsubscribe', 2, { id: 'u' }), topic: 'news' };
    expect(applyEvent(undefined, without).record.topics['news']!.evidence).toStrictEqual({
      'unsubscribe:ses#u': { kind: 'unsubscribe', occurredAt: 2, provider: 'ses' },
    });
  });
});

describe('applyEvent topic effects', () => {
  const topicEvent = (kind: 'unsubscribe' | 'subscribe', at: number, id: string) => ({
    ...ev(kind, at, { id }),
    topic: 'news',
  });

  it('reports status moves, added evidence, repeats and capped-out entries', () => {
    const first = applyEvent(undefined, topicEvent('unsubscribe', 10, 'a'));
    expect(first.effect).toBe('topic_unsubscribed');
    expect(applyEvent(first.record, topicEvent('unsubscribe', 10, 'a')).effect).toBe('no_change');
    expect(applyEvent(first.record, topicEvent('unsubscribe', 11, 'b')).effect).toBe('evidence_added');
    expect(applyEvent(first.record, topicEvent('subscribe', 12, 'c')).effect).toBe('topic_subscribed');
    // Older than the newest entry with a cap of one: not kept, so nothing was added.
    const capped = applyEvent(undefined, topicEvent('unsubscribe', 10, 'a'), ONE_PER_KIND).record;
    expect(applyEvent(capped, topicEvent('unsubscribe', 5, 'old'), ONE_PER_KIND).effect).toBe('no_change');
  });

  it('reads a stored record written before topics existed', () => {
    const old = { ...emptyRecord(EMAIL) } as Partial<SuppressionRecord>;
    delete old.topics;
    expect(applyEvent(old as SuppressionRecord, topicEvent('unsubscribe', 1, 'a')).effect).toBe('topic_unsubscribed');
  });
});

describe('applyEvent soft-bounce effects', () => {
  it('tells a counted bounce from one a delivery supersedes, and from a repeat', () => {
    const delivered = applyEvent(undefined, ev('delivered', 10)).record;
    expect(applyEvent(delivered, ev('soft_bounce', 9)).effect).toBe('superseded_by_delivery');
    expect(applyEvent(delivered, ev('soft_bounce', 10)).effect).toBe('superseded_by_delivery');
    const counted = applyEvent(delivered, ev('soft_bounce', 11, { id: 'x' }));
    expect(counted.effect).toBe('soft_bounce_counted');
    expect(applyEvent(counted.record, ev('soft_bounce', 11, { id: 'x' })).effect).toBe('no_change');
  });
});

describe('manual actions', () => {
  it('check the policy', () => {
    expect(() => reactivate(emptyRecord(EMAIL), ops(1), BAD_POLICY)).toThrow(RangeError);
    expect(() => suppressManually(undefined, EMAIL, ops(1), BAD_POLICY)).toThrow(RangeError);
    expect(() => changeTopicManually(undefined, EMAIL, 'news', 'unsubscribe', ops(1), BAD_POLICY)).toThrow(RangeError);
  });

  it('refuse a malformed action with its message', () => {
    expect(() => suppressManually(undefined, EMAIL, { actor: '  ', reason: 'r', at: 1 })).toThrow(
      new TypeError('a manual action needs an actor'),
    );
    expect(() =>
      suppressManually(undefined, EMAIL, { actor: undefined as unknown as string, reason: 'r', at: 1 }),
    ).toThrow(new TypeError('a manual action needs an actor'));
    expect(() => reactivate(emptyRecord(EMAIL), { actor: 7 as unknown as string, reason: 'r', at: 1 })).toThrow(
      new TypeError('a manual action needs an actor'),
    );
    expect(() => suppressManually(undefined, EMAIL, { actor: 'ops', reason: 5 as unknown as string, at: 1 })).toThrow(
      new TypeError('a manual action needs a reason'),
    );
    expect(() => suppressManually(undefined, EMAIL, { actor: 'ops', reason: 'r', at: Number.NaN })).toThrow(
      new TypeError('a manual action needs a time'),
    );
    expect(() => changeTopicManually(undefined, EMAIL, 'not a topic!', 'unsubscribe', ops(1))).toThrow(
      new TypeError('not a topic name'),
    );
    expect(() => changeTopicManually(undefined, EMAIL, 'news', 'maybe' as 'subscribe', ops(1))).toThrow(
      new TypeError('a topic change is unsubscribe or subscribe'),
    );
  });

  it('a manual suppression of an already suppressed address adds its reason, it does not suppress again', () => {
    const bounced = applyEvent(undefined, ev('hard_bounce', 5)).record;
    const added = suppressManually(bounced, EMAIL, ops(8));
    expect(added.effect).toBe('reason_added');
    expect(added.record.reasons).toEqual(['hard_bounce', 'manual']);
    const again = suppressManually(added.record, EMAIL, ops(9));
    expect(again.effect).toBe('evidence_added');
    expect(suppressManually(again.record, EMAIL, ops(9)).effect).toBe('no_change');
  });

  it('store the trimmed actor', () => {
    const { record } = suppressManually(undefined, EMAIL, { actor: ' ops ', reason: ' why ', at: 3 });
    expect(record.audit).toStrictEqual([{ action: 'suppress', actor: 'ops', reason: ' why ', at: 3 }]);
    expect(record.evidence).toStrictEqual({
      'manual:3': { kind: 'manual', occurredAt: 3, provider: 'manual', actor: 'ops', note: ' why ' },
    });
  });

  it('store a manual topic change as exact evidence, with the scope under an alias', () => {
    const plain = changeTopicManually(undefined, EMAIL, 'news', 'unsubscribe', ops(5));
    expect(plain.effect).toBe('topic_unsubscribed');
    expect(plain.record.topics['news']!.evidence).toStrictEqual({
      'unsubscribe:manual#5': { kind: 'unsubscribe', occurredAt: 5, provider: 'manual', actor: 'ops', note: 'r' },
    });
    const aliased = changeTopicManually(undefined, EMAIL, 'news', 'subscribe', ops(6), {
      softBounceLimit: 3,
      softBounceWindowMs: 1,
      topicAliases: new Map([['news', 'n']]),
    });
    expect(Object.keys(aliased.record.topics)).toEqual(['n']);
    expect(aliased.record.topics['n']!.evidence).toStrictEqual({
      'subscribe:manual#6': {
        kind: 'subscribe',
        occurredAt: 6,
        provider: 'manual',
        actor: 'ops',
        note: 'r',
        scope: 'news',
      },
    });
    expect(aliased.record.audit).toStrictEqual([
      { action: 'reactivate', actor: 'ops', reason: 'r', at: 6, topic: 'n' },
    ]);
  });

  it('report each suppression effect', () => {
    const reactivated = reactivate(emptyRecord(EMAIL), ops(5)).record;
    expect(suppressManually(reactivated, EMAIL, ops(4)).effect).toBe('ignored_before_reactivation');
    expect(suppressManually(reactivated, EMAIL, ops(5)).effect).toBe('ignored_before_reactivation');
    expect(suppressManually(reactivated, EMAIL, ops(6)).effect).toBe('suppressed');
    const complained = applyEvent(undefined, ev('complaint', 1)).record;
    expect(suppressManually(complained, EMAIL, ops(2)).effect).toBe('reason_added');
    const manual = suppressManually(undefined, EMAIL, ops(10)).record;
    expect(suppressManually(manual, EMAIL, ops(11)).effect).toBe('evidence_added');
    expect(suppressManually(manual, EMAIL, ops(10)).effect).toBe('no_change');
    const capped = suppressManually(undefined, EMAIL, ops(10), ONE_PER_KIND).record;
    expect(suppressManually(capped, EMAIL, ops(5), ONE_PER_KIND).effect).toBe('no_change');
  });
});

describe('importEntry effects', () => {
  const entry = (kind: ImportedEntry['kind'], occurredAt: number, entryId: string): ImportedEntry => ({
    kind,
    occurredAt,
    entryId,
    actor: 'import:f.csv',
    source: 'sendgrid-bounces',
  });

  it('checks the policy and the time', () => {
    expect(() => importEntry(undefined, EMAIL, entry('complaint', 1, 'a'), BAD_POLICY)).toThrow(RangeError);
    expect(() => importEntry(undefined, EMAIL, entry('complaint', Number.NaN, 'a'))).toThrow(
      new TypeError('an imported entry needs a time'),
    );
  });

  it('reports each effect', () => {
    const reactivated = reactivate(emptyRecord(EMAIL), ops(10)).record;
    expect(importEntry(reactivated, EMAIL, entry('complaint', 10, 'a')).effect).toBe('ignored_before_reactivation');
    expect(importEntry(reactivated, EMAIL, entry('complaint', 11, 'a')).effect).toBe('suppressed');
    const complained = importEntry(undefined, EMAIL, entry('complaint', 1, 'a')).record;
    expect(importEntry(complained, EMAIL, entry('complaint', 2, 'b')).effect).toBe('evidence_added');
    expect(importEntry(complained, EMAIL, entry('hard_bounce', 2, 'c')).effect).toBe('reason_added');
    expect(importEntry(complained, EMAIL, entry('complaint', 1, 'a')).effect).toBe('no_change');
    const bounced = importEntry(undefined, EMAIL, entry('soft_bounce', 1, 's'));
    expect(bounced.effect).toBe('evidence_added');
    expect(importEntry(bounced.record, EMAIL, entry('soft_bounce', 1, 's')).effect).toBe('no_change');
  });
});
