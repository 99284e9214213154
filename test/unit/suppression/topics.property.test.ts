/**
 * Topics under any arrival order and any duplication: the per-topic winner is the latest change by
 * event time (an opt-out winning a tie, then the greater evidence key), computed here by an oracle
 * from the SET of operations; global fields are exactly what the global operations alone give; and
 * merging the records of two halves equals applying everything. Global operations are the ones that
 * are order-independent without exception (no soft bounces: their sticky limit is tested elsewhere).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  changeTopicManually,
  emptyRecord,
  mergeRecords,
  type RatchetPolicy,
  type SuppressionRecord,
} from '../../../lambdas/core/suppression/index.js';
import { propertyRuns } from '../support/property-runs.js';
import { EMAIL, ev, fold, type Op, runOp } from './support.js';

type TopicOp = Op | { type: 'topic'; topic: string; change: 'unsubscribe' | 'subscribe'; actor: string; at: number };

const POLICY: RatchetPolicy = { softBounceLimit: 3, softBounceWindowMs: 3 };
const CAPPED: RatchetPolicy = { softBounceLimit: 3, softBounceWindowMs: 3, evidencePerKind: 3 };
const ALIASED: RatchetPolicy = {
  ...POLICY,
  topicAliases: new Map([
    ['sendgrid:group:1', 'news'],
    ['ses:main:weekly', 'news'],
  ]),
};
const TOPICS = ['sendgrid:group:1', 'ses:main:weekly', 'news', 'postmark:stream:broadcast'];

function apply(record: SuppressionRecord | undefined, op: TopicOp, policy: RatchetPolicy): SuppressionRecord {
  if (op.type === 'topic')
    return changeTopicManually(record, EMAIL, op.topic, op.change, { actor: op.actor, reason: 'r', at: op.at }, policy)
      .record;
  return runOp(record, op, policy).record;
}

function foldAll(ops: readonly TopicOp[], policy: RatchetPolicy): SuppressionRecord | undefined {
  let record: SuppressionRecord | undefined;
  for (const op of ops) record = apply(record, op, policy);
  return record;
}

const time = fc.integer({ min: 0, max: 6 });
const shape = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      type: fc.constant('tevent' as const),
      kind: fc.constantFrom('unsubscribe' as const, 'subscribe' as const),
      topic: fc.constantFrom(...TOPICS),
      provider: fc.constantFrom('ses', 'sendgrid'),
      at: time,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      type: fc.constant('topic' as const),
      topic: fc.constantFrom(...TOPICS),
      change: fc.constantFrom('unsubscribe' as const, 'subscribe' as const),
      actor: fc.constantFrom('ops', 'al'),
      at: time,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      type: fc.constant('gevent' as const),
      kind: fc.constantFrom('unsubscribe' as const, 'complaint' as const, 'hard_bounce' as const, 'delivered' as const),
      at: time,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant('reactivate' as const),
      actor: fc.constant('ops'),
      reason: fc.constant('ok'),
      at: time,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant('suppress' as const),
      actor: fc.constant('ops'),
      reason: fc.constant('asked'),
      at: time,
    }),
  },
);

/** Distinct ops (one id = one event), then an arrival order with duplicates. */
const setAndArrival = fc
  .array(shape, { minLength: 1, maxLength: 14 })
  .map((shapes) =>
    shapes.map((s, i): TopicOp => {
      if (s.type === 'tevent')
        return { type: 'event', event: { ...ev(s.kind, s.at, { id: `t${i}`, provider: s.provider }), topic: s.topic } };
      if (s.type === 'gevent') return { type: 'event', event: ev(s.kind, s.at, { id: `g${i}` }) };
      return s;
    }),
  )
  .chain((set) =>
    fc
      .array(fc.nat({ max: set.length - 1 }), { maxLength: 10 })
      .chain((extra) =>
        fc.shuffledSubarray([...set.map((_, i) => i), ...extra], { minLength: set.length + extra.length }),
      )
      .map((order) => ({ set, arrival: order.map((i) => set[i]!) })),
  );

/** The oracle: per topic (after aliasing), the entries sorted by the stated total order. */
function expectedTopics(
  set: readonly TopicOp[],
  policy: RatchetPolicy,
): Record<string, { status: string; changedAt: number; keys: string[] }> {
  const byTopic = new Map<string, Array<{ key: string; kind: string; at: number }>>();
  const add = (topic: string, key: string, kind: string, at: number) => {
    const name = policy.topicAliases?.get(topic) ?? topic;
    const list = byTopic.get(name) ?? [];
    if (!list.some((e) => e.key === key)) list.push({ key, kind, at });
    byTopic.set(name, list);
  };
  for (const op of set) {
    if (op.type === 'event' && op.event.topic !== undefined)
      add(
        op.event.topic,
        `${op.event.kind}:${op.event.provider}#${op.event.eventId}`,
        op.event.kind,
        op.event.occurredAt,
      );
    if (op.type === 'topic') add(op.topic, `${op.change}:manual#${op.at}`, op.change, op.at);
  }
  const out: Record<string, { status: string; changedAt: number; keys: string[] }> = {};
  for (const [name, list] of byTopic) {
    // Written independently of topics.ts: sort by time desc; opt-out first; key desc.
    const sorted = [...list].sort((a, b) => {
      if (a.at !== b.at) return b.at - a.at;
      if (a.kind !== b.kind) return a.kind === 'unsubscribe' ? -1 : 1;
      return a.key < b.key ? 1 : -1;
    });
    const kept = sorted.slice(0, policy.evidencePerKind ?? 20);
    out[name] = {
      status: kept[0]!.kind === 'unsubscribe' ? 'unsubscribed' : 'subscribed',
      changedAt: kept[0]!.at,
      keys: kept.map((e) => e.key).sort(),
    };
  }
  return out;
}

function observedTopics(
  record: SuppressionRecord | undefined,
): Record<string, { status: string; changedAt: number; keys: string[] }> {
  const out: Record<string, { status: string; changedAt: number; keys: string[] }> = {};
  for (const [name, state] of Object.entries(record?.topics ?? {}))
    out[name] = { status: state.status, changedAt: state.changedAt, keys: Object.keys(state.evidence).sort() };
  return out;
}

/** The record with topics and the topic-only history removed: what the global ops alone decide. */
function globalPart(stored: SuppressionRecord | undefined): unknown {
  const record = stored ?? emptyRecord(EMAIL);
  const { topics: _t, firstEventAt: _f, lastEventAt: _l, audit, ...rest } = record;
  return { ...rest, audit: audit.filter((a) => a.topic === undefined) };
}

describe.each([
  ['default cap', POLICY],
  ['tiny cap (3 per topic)', CAPPED],
  ['with aliases', ALIASED],
])('topics (%s)', (_name, policy) => {
  it('converge under any arrival order and duplication, to the oracle', () => {
    fc.assert(
      fc.property(setAndArrival, ({ set, arrival }) => {
        const inOrder = foldAll(set, policy);
        const shuffled = foldAll(arrival, policy);
        expect(JSON.stringify(shuffled)).toBe(JSON.stringify(inOrder));
        expect(observedTopics(shuffled)).toEqual(expectedTopics(set, policy));
      }),
      { numRuns: propertyRuns(400) },
    );
  });

  it('never touch status, reasons or transactionalStatus', () => {
    fc.assert(
      fc.property(setAndArrival, ({ arrival }) => {
        const globalOnly = arrival.filter(
          (op) => op.type !== 'topic' && !(op.type === 'event' && op.event.topic !== undefined),
        ) as Op[];
        expect(globalPart(foldAll(arrival, policy))).toEqual(globalPart(fold(globalOnly, policy)));
      }),
      { numRuns: propertyRuns(250) },
    );
  });

  it('merge: the records of two halves merge into the record of the whole', () => {
    fc.assert(
      fc.property(setAndArrival, fc.nat(), ({ arrival }, cut) => {
        const at = cut % (arrival.length + 1);
        const a = foldAll(arrival.slice(0, at), policy);
        const b = foldAll(arrival.slice(at), policy);
        const whole = foldAll(arrival, policy);
        if (!a || !b) return;
        expect(JSON.stringify(mergeRecords(a, b, policy))).toBe(JSON.stringify(whole));
        expect(JSON.stringify(mergeRecords(b, a, policy))).toBe(JSON.stringify(whole));
      }),
      { numRuns: propertyRuns(250) },
    );
  });

  it('are idempotent: applying any operation again changes nothing', () => {
    fc.assert(
      fc.property(setAndArrival, ({ set }) => {
        const record = foldAll(set, policy);
        for (const op of set) expect(JSON.stringify(apply(record, op, policy))).toBe(JSON.stringify(record));
      }),
      { numRuns: propertyRuns(200) },
    );
  });
});
