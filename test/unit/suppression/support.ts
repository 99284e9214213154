/**
 * Shared test vocabulary for the ratchet: operations (events and manual actions), a fold over them,
 * fast-check arbitraries over a deliberately tiny domain (so times collide and events repeat), and an
 * independent oracle that computes the expected outcome from the SET of operations.
 */
import fc from 'fast-check';
import type { ActionableKind, NormalizedEvent } from '../../../lambdas/core/event.js';
import {
  type ApplyResult,
  applyEvent,
  emptyRecord,
  type RatchetPolicy,
  reactivate,
  type SuppressionReason,
  type SuppressionRecord,
  suppressManually,
} from '../../../lambdas/core/suppression/index.js';

export const EMAIL = 'someone@example.com';
export const DAY = 24 * 60 * 60 * 1000;
export const T0 = Date.UTC(2024, 0, 1);

let sequence = 0;
/** A normalized event; ids are unique unless given, so each call is a distinct event. */
export function ev(
  kind: ActionableKind,
  occurredAt: number,
  options: {
    id?: string;
    provider?: string;
    recipient?: string;
    detail?: NormalizedEvent['detail'];
    messageId?: string | undefined;
  } = {},
): NormalizedEvent {
  const event: NormalizedEvent = {
    provider: options.provider ?? 'ses',
    eventId: options.id ?? `evt-${++sequence}`,
    recipient: options.recipient ?? EMAIL,
    kind,
    occurredAt,
    detail: options.detail ?? {},
    raw: '{}',
  };
  if (options.messageId !== undefined) event.messageId = options.messageId;
  return event;
}

export type Op =
  | { type: 'event'; event: NormalizedEvent }
  | { type: 'reactivate'; actor: string; reason: string; at: number }
  | { type: 'suppress'; actor: string; reason: string; at: number };

export function runOp(record: SuppressionRecord | undefined, op: Op, policy: RatchetPolicy): ApplyResult {
  switch (op.type) {
    case 'event':
      return applyEvent(record, op.event, policy);
    case 'suppress':
      return suppressManually(record, EMAIL, op, policy);
    case 'reactivate':
      // The API needs an existing record; an empty one is what the adapter would have after any write.
      return reactivate(record ?? emptyRecord(EMAIL), op, policy);
  }
}

export function fold(
  ops: readonly Op[],
  policy: RatchetPolicy,
  start?: SuppressionRecord,
): SuppressionRecord | undefined {
  let record = start;
  for (const op of ops) record = runOp(record, op, policy).record;
  return record;
}

// ---------------------------------------------------------------------------------------------
// Arbitraries. Times are small integers (the functions never look at the wall clock, so 0..12 ms
// with a 3 ms window exercises exactly the same logic as days) so that equal times, "at or before"
// boundaries and windows are hit constantly.

export const PROPERTY_POLICY: RatchetPolicy = { softBounceLimit: 3, softBounceWindowMs: 3 };
/** A tiny evidence cap, so that a 30-event sequence does reach it (soft cap = max(4, 2 x 2) = 4). */
export const CAPPED_POLICY: RatchetPolicy = { softBounceLimit: 2, softBounceWindowMs: 2, evidencePerKind: 4 };
/** Soft cap max(5, 6) = 6, so (6 - 1) / (3 - 1): 2 entries kept per message, which sequences often exceed. */
export const PER_MESSAGE_POLICY: RatchetPolicy = { softBounceLimit: 3, softBounceWindowMs: 3, evidencePerKind: 5 };

const time = fc.integer({ min: 0, max: 12 });
/**
 * Soft bounces dominate, so the budget is exercised; how many deliveries there are is chosen per set
 * (none, few, many), since deliveries decide whether bounces count at all.
 */
function kindArb(deliveryWeight: number): fc.Arbitrary<ActionableKind> {
  const kinds: Array<fc.WeightedArbitrary<ActionableKind>> = [
    { weight: 6, arbitrary: fc.constant<ActionableKind>('soft_bounce') },
    { weight: 1, arbitrary: fc.constantFrom<ActionableKind>('hard_bounce', 'complaint', 'unsubscribe') },
  ];
  if (deliveryWeight > 0) kinds.push({ weight: deliveryWeight, arbitrary: fc.constant<ActionableKind>('delivered') });
  return fc.oneof(...kinds);
}

/** Content of one op; ids are assigned afterwards so that one id always means one event (as after the inbox). */
function opShape(deliveryWeight: number) {
  return fc.oneof(
    {
      weight: 14,
      arbitrary: fc.record({
        type: fc.constant('event' as const),
        kind: kindArb(deliveryWeight),
        provider: fc.constantFrom('ses', 'sendgrid'),
        at: time,
        bounceType: fc.constantFrom(undefined, 'Transient', 'Permanent'),
        // Few messages, so that several bounces of one message (one strike) are the common case;
        // no id at all is how every entry written before message ids reads.
        messageId: fc.constantFrom(undefined, 'm1', 'm2', 'm3', 'm4'),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        type: fc.constant('reactivate' as const),
        actor: fc.constantFrom('ops', 'alice'),
        reason: fc.constantFrom('ticket 1', 'fixed'),
        at: time,
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        type: fc.constant('suppress' as const),
        actor: fc.constantFrom('ops', 'alice'),
        reason: fc.constantFrom('asked', 'legal'),
        at: time,
      }),
    },
  );
}

/** A set of distinct operations (duplicates, if wanted, are made by the caller from this set). */
export function opSet(maxLength: number): fc.Arbitrary<Op[]> {
  return fc
    .constantFrom(0, 1, 4)
    .chain((deliveryWeight) => fc.array(opShape(deliveryWeight), { minLength: 1, maxLength }))
    .map((shapes) =>
      shapes.map((s, i): Op => {
        if (s.type !== 'event') return s;
        const detail = s.bounceType === undefined ? {} : { bounceType: s.bounceType };
        return {
          type: 'event',
          event: ev(s.kind, s.at, { id: `e${i}`, provider: s.provider, detail, messageId: s.messageId }),
        };
      }),
    );
}

/** A set of ops, plus an arrival sequence: every op at least once, some several times, shuffled. */
export function setAndArrival(maxDistinct: number, maxLength: number): fc.Arbitrary<{ set: Op[]; arrival: Op[] }> {
  return opSet(maxDistinct).chain((set) =>
    fc
      .array(fc.nat({ max: set.length - 1 }), { maxLength: Math.max(0, maxLength - set.length) })
      .chain((extra) =>
        fc.shuffledSubarray([...set.map((_, i) => i), ...extra], { minLength: set.length + extra.length }),
      )
      .map((order) => ({ set, arrival: order.map((i) => set[i]!) })),
  );
}

// ---------------------------------------------------------------------------------------------
// The oracle: the specification, written directly over the set of operations (no incremental state).

const PRECEDENCE: SuppressionReason[] = ['complaint', 'hard_bounce', 'unsubscribe', 'soft_bounce_limit', 'manual'];

export interface Expected {
  reasons: SuppressionReason[];
  suppressedAt?: number;
  softBounceLimitAt?: number;
  lastDeliveredAt?: number;
  reactivatedAt?: number;
  firstEventAt?: number;
  lastEventAt?: number;
  evidenceKeys: string[];
  /**
   * False when the sticky soft-bounce limit may legitimately make the outcome depend on arrival
   * order, or when the cap regime makes the exact `softBounceLimitAt` value order-dependent.
   */
  exact: boolean;
  /** Whether the soft-bounce limit is crossed by the bounces that still count at the end. */
  limitCrossedAtEnd: boolean;
}

function maxOf(values: number[]): number | undefined {
  return values.length === 0 ? undefined : Math.max(...values);
}
function minOf(values: number[]): number | undefined {
  return values.length === 0 ? undefined : Math.min(...values);
}

/** One soft bounce that still counts: its map key, time, and the message it is about (its key when it has no message id). */
interface Bounce {
  key: string;
  at: number;
  message: string;
  hasMessageId: boolean;
}

/** The spec's per-message maximum, written out: enough for a retry schedule, and a full cap spans `limit` messages. */
function perMessageCap(policy: RatchetPolicy, softCap: number): number {
  return policy.softBounceLimit === 1 ? 8 : Math.min(8, Math.floor((softCap - 1) / (policy.softBounceLimit - 1)));
}

/** Each message's newest `cap` bounces (ties: the larger key first), whether any was let go, and whether it is full. */
function byMessage(
  bounces: Bounce[],
  cap: number,
): { kept: Bounce[]; messages: Array<{ times: number[]; full: boolean }>; dropped: boolean } {
  const groups = new Map<string, Bounce[]>();
  for (const b of bounces) groups.set(b.message, [...(groups.get(b.message) ?? []), b]);
  const kept: Bounce[] = [];
  const messages: Array<{ times: number[]; full: boolean }> = [];
  let dropped = false;
  for (const list of groups.values()) {
    const newest = [...list].sort((a, b) => b.at - a.at || (a.key < b.key ? 1 : -1)).slice(0, cap);
    if (list.length > cap) dropped = true;
    kept.push(...newest);
    messages.push({ times: newest.map((b) => b.at), full: list[0]!.hasMessageId && newest.length >= cap });
  }
  return { kept, messages, dropped };
}

/**
 * The budget's spec, checked by sliding a window over EVERY integer position (times are small
 * integers), not only the bounce times the implementation tries: a window holds a message when one
 * of its bounces is inside, or when the message is full and its newest bounce is at or after the
 * window's start; `limit` messages in one window cross, dated by the earliest bounce of those messages.
 */
function strikeStart(
  messages: Array<{ times: number[]; full: boolean }>,
  limit: number,
  window: number,
): number | undefined {
  const all = messages.flatMap((m) => m.times);
  if (all.length === 0) return undefined;
  const starts: number[] = [];
  for (let from = Math.min(...all) - window; from <= Math.max(...all); from++) {
    const inWindow = messages.filter(
      (m) => m.times.some((t) => from <= t && t <= from + window) || (m.full && Math.max(...m.times) >= from),
    );
    if (inWindow.length >= limit) starts.push(Math.min(...inWindow.flatMap((m) => m.times)));
  }
  return minOf(starts);
}

export function oracle(set: readonly Op[], policy: RatchetPolicy): Expected {
  const cap = policy.evidencePerKind ?? 20;
  const softCap = Math.max(cap, 2 * policy.softBounceLimit);
  const events = set.flatMap((op) => (op.type === 'event' ? [op.event] : []));
  const reactivatedAt = maxOf(set.flatMap((op) => (op.type === 'reactivate' ? [op.at] : [])));
  const lastDeliveredAt = maxOf(events.filter((e) => e.kind === 'delivered').map((e) => e.occurredAt));
  const c = reactivatedAt ?? -Infinity;
  const d = lastDeliveredAt ?? -Infinity;

  // [key, kind, time] of everything that still counts, before the cap.
  const counted: Array<[string, string, number]> = [];
  for (const op of set) {
    if (op.type === 'suppress' && op.at > c) counted.push([`manual:${op.at}`, 'manual', op.at]);
    if (op.type !== 'event' || op.event.kind === 'delivered' || op.event.occurredAt <= c) continue;
    if (op.event.kind === 'soft_bounce' && op.event.occurredAt <= d) continue;
    const id = `${op.event.provider}#${op.event.eventId}`;
    counted.push([op.event.kind === 'soft_bounce' ? id : `${op.event.kind}:${id}`, op.event.kind, op.event.occurredAt]);
  }
  const unique = [...new Map(counted.map((x) => [x[0], x])).values()];
  const kept: Array<[string, string, number]> = [];
  for (const k of ['complaint', 'hard_bounce', 'unsubscribe', 'manual']) {
    const ofKind = unique
      .filter((x) => x[1] === k)
      .sort((a, b) => b[2] - a[2] || (a[0] < b[0] ? 1 : a[0] > b[0] ? -1 : 0));
    kept.push(...ofKind.slice(0, cap));
  }

  // Soft bounces: one strike per message, each message's newest few kept, then the newest softCap.
  const messageOf = new Map(events.map((e) => [`${e.provider}#${e.eventId}`, e]));
  const bounce = ([key, , at]: [string, string, number]): Bounce => {
    const messageId = messageOf.get(key)!.messageId;
    return {
      key,
      at,
      message: messageId === undefined ? `alone ${key}` : `${messageOf.get(key)!.provider} ${messageId}`,
      hasMessageId: messageId !== undefined,
    };
  };
  const perMessage = perMessageCap(policy, softCap);
  const counting = byMessage(unique.filter((x) => x[1] === 'soft_bounce').map(bounce), perMessage);
  const keptSoft = [...counting.kept].sort((a, b) => b.at - a.at || (a.key < b.key ? 1 : -1)).slice(0, softCap);
  kept.push(...keptSoft.map((b): [string, string, number] => [b.key, 'soft_bounce', b.at]));
  const overflow = counting.kept.length >= softCap;
  let softBounceLimitAt = strikeStart(counting.messages, policy.softBounceLimit, policy.softBounceWindowMs);
  if (overflow)
    softBounceLimitAt = minOf([
      ...(softBounceLimitAt === undefined ? [] : [softBounceLimitAt]),
      ...keptSoft.map((b) => b.at),
    ]);

  // Where order can matter: bounces that count once deliveries are ignored (Z) could cross the limit
  // in a run that a delivery later covers; or Z could reach a cap (the per-message one, or the total)
  // and let entries go before a delivery prunes the rest.
  const z = events
    .filter((e) => e.kind === 'soft_bounce' && e.occurredAt > c)
    .map((e): [string, string, number] => [`${e.provider}#${e.eventId}`, 'soft_bounce', e.occurredAt])
    .map(bounce);
  const zCounting = byMessage(z, perMessage);
  const zStart = strikeStart(zCounting.messages, policy.softBounceLimit, policy.softBounceWindowMs);
  const zStartsBeforeDelivery = zStart !== undefined && zStart <= d;
  const zCapped = zCounting.dropped || zCounting.kept.length >= softCap;
  const exact = !zStartsBeforeDelivery && !zCapped && !overflow;

  const inEffect = new Set<SuppressionReason>();
  const suppressing: number[] = [];
  for (const [, k, t] of kept) {
    if (k === 'soft_bounce') continue;
    inEffect.add(k as SuppressionReason);
    suppressing.push(t);
  }
  if (softBounceLimitAt !== undefined) {
    inEffect.add('soft_bounce_limit');
    suppressing.push(softBounceLimitAt);
  }
  const times = events.map((e) => e.occurredAt);
  const expected: Expected = {
    reasons: PRECEDENCE.filter((r) => inEffect.has(r)),
    evidenceKeys: kept.map((x) => x[0]).sort(),
    exact,
    limitCrossedAtEnd: softBounceLimitAt !== undefined,
  };
  const optional = {
    suppressedAt: minOf(suppressing),
    softBounceLimitAt,
    lastDeliveredAt,
    reactivatedAt,
    firstEventAt: minOf(times),
    lastEventAt: maxOf(times),
  };
  for (const [k, v] of Object.entries(optional))
    if (v !== undefined) (expected as unknown as Record<string, unknown>)[k] = v;
  return expected;
}

/** The fields an Expected describes, read off a record. */
export function observed(record: SuppressionRecord | undefined): Omit<Expected, 'exact' | 'limitCrossedAtEnd'> {
  const r = record ?? emptyRecord(EMAIL);
  const out: Record<string, unknown> = {
    reasons: r.reasons,
    evidenceKeys: [...Object.keys(r.evidence), ...Object.keys(r.softBounces)].sort(),
  };
  for (const k of [
    'suppressedAt',
    'softBounceLimitAt',
    'lastDeliveredAt',
    'reactivatedAt',
    'firstEventAt',
    'lastEventAt',
  ] as const) {
    const v = (r as Partial<SuppressionRecord>)[k];
    if (v !== undefined) out[k] = v;
  }
  return out as Omit<Expected, 'exact' | 'limitCrossedAtEnd'>;
}

/** The record without the fields the sticky soft-bounce limit is allowed to influence. */
export function withoutSticky(record: SuppressionRecord | undefined): unknown {
  if (!record) return undefined;
  const {
    status: _s,
    transactionalStatus: _t,
    reason: _r,
    reasons: _rs,
    suppressedAt: _sa,
    softBounceLimitAt: _l,
    ...rest
  } = record;
  return rest;
}

export function all<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [items.slice()];
  return items.flatMap((item, i) => all([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]));
}
