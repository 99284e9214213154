/**
 * Per-topic state. The stored fact per topic is its evidence map (opt-outs and opt-ins); `status`
 * and `changedAt` are derived from the winning entry. Union plus "keep the top N of a total order"
 * is independent of order and duplication, and the winner is always the top entry, so it survives
 * the cap.
 *
 * The order (newest first):
 * 1. later `occurredAt` (the provider's event time) first: the latest change wins, opt-out or opt-in;
 * 2. on equal time, an opt-out (`unsubscribe`) before an opt-in: when we cannot tell which came last,
 *    we side with the recipient's withdrawal of consent;
 * 3. then the greater evidence key (`<kind>:<provider>#<eventId>`, by UTF-16 code units) first. Keys
 *    are unique within a topic, so this is a total order and the tie rule is deterministic.
 *
 * Topics are independent of the global record: a reactivation does not prune them, and no topic
 * entry ever changes `status`, `reasons` or `transactionalStatus`.
 */
import { isRecord } from '../json.js';
import { compareStrings, malformed, readEvidenceMap, unionEvidence } from './evidence.js';
import type { Evidence, TopicState } from './record.js';

/** Topic name → its evidence map: what `normalize` derives `topics` from. */
export type TopicFacts = Record<string, Record<string, Evidence>>;

type Keyed = [key: string, entry: Evidence];

const OPT_OUT_FIRST: Readonly<Record<string, number>> = { unsubscribe: 0, subscribe: 1 };

export function topicOrder(a: Keyed, b: Keyed): number {
  return (
    b[1].occurredAt - a[1].occurredAt ||
    (OPT_OUT_FIRST[a[1].kind] ?? 2) - (OPT_OUT_FIRST[b[1].kind] ?? 2) ||
    compareStrings(b[0], a[0])
  );
}

export function unionTopics(a: TopicFacts, b: TopicFacts): TopicFacts {
  const merged = new Map<string, Record<string, Evidence>>(Object.entries(a));
  for (const [topic, evidence] of Object.entries(b))
    merged.set(topic, unionEvidence(merged.get(topic) ?? {}, evidence));
  return Object.fromEntries(merged);
}

/** Derived topic states, topics sorted by name and evidence newest last (stable bytes, like `evidence`). */
export function deriveTopics(facts: TopicFacts, cap: number): Record<string, TopicState> {
  const out: Array<[string, TopicState]> = [];
  for (const topic of Object.keys(facts).sort(compareStrings)) {
    const entries = Object.entries(facts[topic]!).sort(topicOrder).slice(0, cap);
    const winner = entries[0];
    if (winner === undefined) continue;
    out.push([
      topic,
      {
        status: winner[1].kind === 'subscribe' ? 'subscribed' : 'unsubscribed',
        changedAt: winner[1].occurredAt,
        evidence: Object.fromEntries(entries.reverse()),
      },
    ]);
  }
  return Object.fromEntries(out);
}

/**
 * Reads stored topics back to facts. Absent (a record written before topics existed) is none. Each
 * topic's `status`/`changedAt` are ignored and re-derived; a topic with no evidence is malformed
 * (we would not know which way it went), and so is an entry of another kind.
 */
export function readTopics(value: unknown): TopicFacts {
  if (value === undefined || value === null) return {};
  if (!isRecord(value)) malformed('topics');
  const out: Array<[string, Record<string, Evidence>]> = [];
  for (const [topic, state] of Object.entries(value)) {
    if (!isRecord(state)) malformed('topic state');
    const evidence = readEvidenceMap(
      state['evidence'],
      'topic evidence',
      (kind) => kind === 'unsubscribe' || kind === 'subscribe',
    );
    if (Object.keys(evidence).length === 0) malformed('topic without evidence');
    out.push([topic, evidence]);
  }
  return Object.fromEntries(out);
}
