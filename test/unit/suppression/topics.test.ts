/**
 * The topic model, example by example: what a topic change does and does not touch, the tie rule,
 * aliases, the cap, manual topic changes, and records written before topics existed.
 */
import { describe, expect, it } from 'vitest';
import {
  applyEvent,
  changeTopicManually,
  emptyRecord,
  policyFromSettings,
  type RatchetPolicy,
  reactivate,
  type SuppressionRecord,
  suppressManually,
} from '../../../lambdas/core/suppression/index.js';
import { deriveTopics } from '../../../lambdas/core/suppression/topics.js';
import { parseTopicAliases } from '../../../lambdas/core/topics.js';
import { DAY, EMAIL, ev, T0 } from './support.js';

const at = (days: number) => T0 + days * DAY;
const topicEv = (kind: 'unsubscribe' | 'subscribe', days: number, topic = 'sendgrid:group:4242', id?: string) => ({
  ...ev(kind, at(days), { provider: 'sendgrid', ...(id ? { id } : {}) }),
  topic,
});

function build(events: ReturnType<typeof ev>[], policy?: RatchetPolicy): SuppressionRecord {
  let record: SuppressionRecord | undefined;
  for (const e of events) record = applyEvent(record, e, policy).record;
  return record!;
}

describe('a topic opt-out', () => {
  it('unsubscribes that topic only: status, transactionalStatus and reasons stay as they were', () => {
    const result = applyEvent(undefined, topicEv('unsubscribe', 1, 'sendgrid:group:4242', 'g1'));
    expect(result.record).toMatchObject({ status: 'active', transactionalStatus: 'active', reasons: [], evidence: {} });
    expect(result.record.topics).toEqual({
      'sendgrid:group:4242': {
        status: 'unsubscribed',
        changedAt: at(1),
        evidence: { 'unsubscribe:sendgrid#g1': { kind: 'unsubscribe', occurredAt: at(1), provider: 'sendgrid' } },
      },
    });
    expect(result).toMatchObject({ changed: true, effect: 'topic_unsubscribed', becameSuppressed: false });
  });

  it('does not lift or add global suppression on a suppressed record', () => {
    const suppressed = build([ev('complaint', at(1))]);
    const next = applyEvent(suppressed, topicEv('subscribe', 2)).record;
    expect(next).toMatchObject({ status: 'suppressed', transactionalStatus: 'suppressed', reasons: ['complaint'] });
    expect(next.topics['sendgrid:group:4242']!.status).toBe('subscribed');
  });

  it('is restored by an opt-in dated after it, whichever arrives first', () => {
    const out = topicEv('unsubscribe', 1);
    const back = topicEv('subscribe', 2);
    for (const order of [
      [out, back],
      [back, out],
    ]) {
      const t = build(order).topics['sendgrid:group:4242']!;
      expect(t).toMatchObject({ status: 'subscribed', changedAt: at(2) });
      expect(Object.keys(t.evidence)).toHaveLength(2);
    }
  });

  it('wins over an opt-in dated before it, even one that arrives later', () => {
    const record = build([topicEv('unsubscribe', 3), topicEv('subscribe', 2)]);
    expect(record.topics['sendgrid:group:4242']).toMatchObject({ status: 'unsubscribed', changedAt: at(3) });
  });

  it('wins a tie: at the same event time an opt-out beats an opt-in, in any order and whatever the ids', () => {
    for (const [outId, inId] of [
      ['a', 'z'],
      ['z', 'a'],
    ]) {
      const out = topicEv('unsubscribe', 5, 'news', outId);
      const back = topicEv('subscribe', 5, 'news', inId);
      expect(build([out, back]).topics['news']!.status).toBe('unsubscribed');
      expect(build([back, out]).topics['news']!.status).toBe('unsubscribed');
    }
  });

  it('keeps the newest 20 entries per topic, and the winner among them', () => {
    const events = Array.from({ length: 25 }, (_, i) =>
      topicEv(i % 2 === 0 ? 'unsubscribe' : 'subscribe', i, 'news', `e${i}`),
    );
    const state = build(events.reverse()).topics['news']!;
    expect(Object.keys(state.evidence)).toHaveLength(20);
    expect(state).toMatchObject({ status: 'unsubscribed', changedAt: at(24) });
    expect(Math.min(...Object.values(state.evidence).map((e) => e.occurredAt))).toBe(at(5));
  });

  it('is not pruned by a global reactivation', () => {
    const record = build([ev('complaint', at(1)), topicEv('unsubscribe', 1)]);
    const next = reactivate(record, { actor: 'ops', reason: 'r', at: at(3) }).record;
    expect(next.status).toBe('active');
    expect(next.topics['sendgrid:group:4242']!.status).toBe('unsubscribed');
  });
});

describe('stored topic evidence', () => {
  it("lists a topic's entries oldest first, newest last (like evidence)", () => {
    const record = build([
      topicEv('unsubscribe', 5, 'news', 'late'),
      topicEv('subscribe', 1, 'news', 'early'),
      topicEv('unsubscribe', 3, 'news', 'mid'),
    ]);
    expect(Object.keys(record.topics['news']!.evidence)).toEqual([
      'subscribe:sendgrid#early',
      'unsubscribe:sendgrid#mid',
      'unsubscribe:sendgrid#late',
    ]);
    expect(record.topics['news']!.status).toBe('unsubscribed');
    expect(record.topics['news']!.changedAt).toBe(at(5));
  });

  it('deriveTopics skips a topic with no entries (it could not say which way it went)', () => {
    const entry = { kind: 'subscribe' as const, occurredAt: 1, provider: 'manual' };
    expect(deriveTopics({ empty: {}, news: { 'subscribe:manual#1': entry } }, 5)).toStrictEqual({
      news: { status: 'subscribed', changedAt: 1, evidence: { 'subscribe:manual#1': entry } },
    });
  });
});

describe('transactionalStatus', () => {
  it('stays active after a global unsubscribe, which suppresses status', () => {
    expect(build([ev('unsubscribe', at(1))])).toMatchObject({
      status: 'suppressed',
      transactionalStatus: 'active',
      reasons: ['unsubscribe'],
    });
  });

  it.each(['complaint', 'hard_bounce'] as const)('is suppressed by a %s, with or without an unsubscribe', (kind) => {
    expect(build([ev(kind, at(1))])).toMatchObject({ status: 'suppressed', transactionalStatus: 'suppressed' });
    expect(build([ev('unsubscribe', at(1)), ev(kind, at(2))])).toMatchObject({ transactionalStatus: 'suppressed' });
  });

  it('is suppressed by a manual suppression and by the soft-bounce limit', () => {
    expect(
      suppressManually(undefined, EMAIL, { actor: 'ops', reason: 'r', at: at(1) }).record.transactionalStatus,
    ).toBe('suppressed');
    const soft = build([1, 2, 3].map((d) => ev('soft_bounce', at(d))));
    expect(soft).toMatchObject({ reasons: ['soft_bounce_limit'], transactionalStatus: 'suppressed' });
  });
});

describe('aliases', () => {
  const policy = policyFromSettings({ TOPIC_ALIASES: 'sendgrid:group:4242=newsletter, ses:main:weekly=newsletter' });

  it('store a provider scope under the alias, keeping the canonical name in the evidence', () => {
    const record = build([topicEv('unsubscribe', 1, 'sendgrid:group:4242', 'g1')], policy);
    expect(Object.keys(record.topics)).toEqual(['newsletter']);
    expect(record.topics['newsletter']!.evidence['unsubscribe:sendgrid#g1']).toMatchObject({
      scope: 'sendgrid:group:4242',
    });
  });

  it('make one topic of two providers: an SES opt-in after a SendGrid opt-out restores it', () => {
    const record = build(
      [topicEv('unsubscribe', 1, 'sendgrid:group:4242'), { ...ev('subscribe', at(2)), topic: 'ses:main:weekly' }],
      policy,
    );
    expect(record.topics).toMatchObject({ newsletter: { status: 'subscribed', changedAt: at(2) } });
  });

  it('leave unmapped scopes under their canonical names', () => {
    expect(Object.keys(build([topicEv('unsubscribe', 1, 'sendgrid:group:7')], policy).topics)).toEqual([
      'sendgrid:group:7',
    ]);
  });

  it('apply to manual topic changes too', () => {
    const result = changeTopicManually(
      undefined,
      EMAIL,
      'ses:main:weekly',
      'unsubscribe',
      { actor: 'ops', reason: 'asked', at: at(1) },
      policy,
    );
    expect(result.record.topics['newsletter']!.status).toBe('unsubscribed');
    expect(result.record.audit).toEqual([
      { action: 'suppress', actor: 'ops', reason: 'asked', at: at(1), topic: 'newsletter' },
    ]);
  });
});

describe('parseTopicAliases', () => {
  it('reads canonical=alias pairs, ignoring spaces and blanks', () => {
    expect([...parseTopicAliases(' sendgrid:group:4242=newsletter ,postmark:stream:broadcast = newsletter')]).toEqual([
      ['sendgrid:group:4242', 'newsletter'],
      ['postmark:stream:broadcast', 'newsletter'],
    ]);
    expect(parseTopicAliases(undefined).size).toBe(0);
    expect(parseTopicAliases('  ').size).toBe(0);
  });

  it.each([
    ['no equals sign', 'sendgrid:group:1'],
    ['two equals signs', 'a=b=c'],
    ['an empty alias', 'sendgrid:group:1='],
    ['a space inside a name', 'a=my list'],
    ['a leading punctuation mark', 'a=-news'],
    ['a name over 128 characters', `a=${'x'.repeat(129)}`],
    ['an empty entry', 'a=b,,c=d'],
    ['one canonical name with two aliases', 'a=b,a=c'],
  ])('refuses %s', (_what, text) => {
    expect(() => parseTopicAliases(text)).toThrow(/TOPIC_ALIASES/);
  });

  it('accepts a name of exactly 128 characters, and is case-sensitive', () => {
    const aliases = parseTopicAliases(`A=${'x'.repeat(128)},a=lower`);
    expect(aliases.get('A')).toHaveLength(128);
    expect(aliases.get('a')).toBe('lower');
  });

  it('is what policyFromSettings runs, so a bad list fails the consumer at start', () => {
    expect(() => policyFromSettings({ TOPIC_ALIASES: 'nope' })).toThrow(/TOPIC_ALIASES entry 1/);
    expect(policyFromSettings({}).topicAliases).toBeUndefined();
  });
});

describe('manual topic changes', () => {
  it('opt out and restore one topic, audited, never touching global state', () => {
    const out = changeTopicManually(undefined, ' Someone@Example.com', 'news', 'unsubscribe', {
      actor: 'ops',
      reason: 'asked',
      at: at(1),
    });
    expect(out).toMatchObject({ changed: true, effect: 'topic_unsubscribed', becameSuppressed: false });
    expect(out.record.topics['news']!.evidence).toEqual({
      [`unsubscribe:manual#${at(1)}`]: {
        kind: 'unsubscribe',
        occurredAt: at(1),
        provider: 'manual',
        actor: 'ops',
        note: 'asked',
      },
    });
    const back = changeTopicManually(out.record, EMAIL, 'news', 'subscribe', {
      actor: 'al',
      reason: 'asked again',
      at: at(2),
    });
    expect(back).toMatchObject({
      effect: 'topic_subscribed',
      record: { status: 'active', transactionalStatus: 'active', topics: { news: { status: 'subscribed' } } },
    });
    expect(back.record.audit.map((a) => [a.action, a.topic])).toEqual([
      ['suppress', 'news'],
      ['reactivate', 'news'],
    ]);
  });

  it('refuses a name that is not a topic name, and another address', () => {
    const action = { actor: 'ops', reason: 'r', at: at(1) };
    expect(() => changeTopicManually(undefined, EMAIL, 'my list', 'unsubscribe', action)).toThrow(TypeError);
    expect(() => changeTopicManually(emptyRecord('other@example.com'), EMAIL, 'news', 'unsubscribe', action)).toThrow(
      TypeError,
    );
  });
});

describe('events the ratchet refuses (caller bugs)', () => {
  it('a subscribe without a topic, a topic on another kind, a topic that is not a name', () => {
    expect(() => applyEvent(undefined, ev('subscribe', at(1)))).toThrow(/needs a topic/);
    expect(() => applyEvent(undefined, { ...ev('hard_bounce', at(1)), topic: 'news' })).toThrow(
      /only unsubscribe and subscribe/,
    );
    expect(() => applyEvent(undefined, { ...ev('unsubscribe', at(1)), topic: 'my list' })).toThrow(/not a topic name/);
  });
});

describe('records written before topics existed', () => {
  const old = {
    email: EMAIL,
    status: 'suppressed',
    reason: 'unsubscribe',
    reasons: ['unsubscribe'],
    suppressedAt: at(1),
    firstEventAt: at(1),
    lastEventAt: at(1),
    evidence: { 'unsubscribe:ses#e1': { kind: 'unsubscribe', occurredAt: at(1), provider: 'ses' } },
    softBounces: {},
    audit: [],
    version: 3,
    updatedAt: 1,
  } as unknown as SuppressionRecord;

  it('read correctly (transactionalStatus derived from reasons) and are brought up to date by any write', () => {
    const result = applyEvent(old, ev('delivered', at(0)));
    expect(result.changed).toBe(true);
    expect(result.record).toMatchObject({
      status: 'suppressed',
      transactionalStatus: 'active',
      topics: {},
      firstEventAt: at(0),
    });
    // Even an event that changes no fact rewrites the record in the new shape.
    const replay = applyEvent(old, { ...ev('unsubscribe', at(1), { id: 'e1' }) });
    expect(replay).toMatchObject({
      changed: true,
      effect: 'no_change',
      record: { transactionalStatus: 'active', topics: {} },
    });
    expect(applyEvent(replay.record, { ...ev('unsubscribe', at(1), { id: 'e1' }) }).changed).toBe(false);
  });

  it('refuse malformed topics rather than dropping them', () => {
    const bad = (topics: unknown) => applyEvent({ ...old, topics } as SuppressionRecord, ev('delivered', at(2)));
    expect(() => bad({ news: { status: 'unsubscribed', changedAt: 1, evidence: {} } })).toThrow(
      /topic without evidence/,
    );
    expect(() => bad({ news: { evidence: { k: { kind: 'complaint', occurredAt: 1, provider: 'x' } } } })).toThrow(
      /holds a complaint entry/,
    );
    expect(() => bad('news')).toThrow(/topics/);
    expect(() =>
      applyEvent(
        {
          ...old,
          evidence: { k: { kind: 'subscribe', occurredAt: 1, provider: 'x' } },
        } as unknown as SuppressionRecord,
        ev('delivered', at(2)),
      ),
    ).toThrow(/holds a subscribe entry/);
  });
});

describe('item size', () => {
  it('topic evidence stays small: 50 topics x 20 changes with 100-character event ids fit in 256 KB (about 4.8 KB per topic at worst)', () => {
    let record: SuppressionRecord | undefined;
    for (let t = 0; t < 50; t++) {
      for (let i = 0; i < 21; i++) {
        const e = {
          ...ev(i % 2 ? 'subscribe' : 'unsubscribe', at(i), {
            provider: 'sendgrid',
            id: `${t}-${i}-`.padEnd(100, 'x'),
            detail: { providerEventType: 'group_unsubscribe', diagnosticCode: 'd'.repeat(160) },
          }),
          topic: `sendgrid:group:${1_000_000 + t}`,
        };
        record = applyEvent(record, e).record;
      }
    }
    expect(Object.keys(record!.topics)).toHaveLength(50);
    expect(Object.values(record!.topics).every((s) => Object.keys(s.evidence).length === 20)).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(record))).toBeLessThan(256 * 1024);
  });
});
