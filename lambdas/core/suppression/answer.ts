/**
 * The three questions sending code asks, answered from a stored item (or the part of it a read
 * projected). Shared by the client package and the in-repo adapter, so both answer identically.
 *
 *   no category           → suppressed iff `status` is `suppressed`
 *   `transactional: true` → suppressed iff `transactionalStatus` is `suppressed` (an unsubscribe
 *                           never blocks a password reset; anything else does)
 *   `topic`               → the above, or that topic is `unsubscribed` (read through TOPIC_ALIASES: an
 *                           opt-out stored under a canonical name before its alias was set counts)
 *
 * The item must be in today's shape: pass what a read returns through `upgradeSuppressionRecord`
 * (schema.ts) first, which is also what gives an item written before topics its `transactionalStatus`.
 */

import { NO_TOPIC_ALIASES, storedTopicNames, type TopicAliases, topicReadAs, topicsUnderAliases } from '../topics.js';
import type { SuppressionReason } from './record.js';
import { SUPPRESSION_SCHEMA_ATTRIBUTE } from './schema.js';

export interface SendQuestion {
  /** The topic (list) the mail belongs to, as stored: an alias when TOPIC_ALIASES maps it. */
  topic?: string;
  /** Mail the recipient needs (password reset, receipt, one-time code): only non-unsubscribe reasons block it. */
  transactional?: boolean;
}

/** Why a send is refused: a global reason, or the topic's opt-out. */
export type RefusalReason = SuppressionReason | 'topic_unsubscribed';

/** A stored item's shape as far as the answer goes; every field may be missing. */
export interface AnswerItem {
  status?: unknown;
  transactionalStatus?: unknown;
  reason?: unknown;
  reasons?: unknown;
  topics?: unknown;
}

/**
 * The attributes a read must fetch to answer (`topics` narrowed to one topic by the caller), and the
 * item's schema version, so the reader can bring the projection up to date.
 */
export const ANSWER_ATTRIBUTES = [
  'email',
  'status',
  'transactionalStatus',
  'reason',
  'reasons',
  SUPPRESSION_SCHEMA_ATTRIBUTE,
] as const;

/**
 * `aliases`: TOPIC_ALIASES as the reader has it. The question's `topic` is then read through them
 * (topicsUnderAliases): a state stored under a canonical name the topic is now the alias of counts too,
 * the latest change winning. Fetch every name storedTopicNames gives.
 */
export function refusalReason(
  item: AnswerItem | undefined,
  question: SendQuestion = {},
  aliases: TopicAliases = NO_TOPIC_ALIASES,
): RefusalReason | undefined {
  if (item === undefined) return undefined;
  const reasons = Array.isArray(item.reasons)
    ? (item.reasons.filter((r) => typeof r === 'string') as SuppressionReason[])
    : [];
  const first = typeof item.reason === 'string' ? (item.reason as SuppressionReason) : reasons[0];
  if (question.transactional === true) {
    if (item.transactionalStatus === 'suppressed') {
      return reasons.find((r) => r !== 'unsubscribe') ?? (first !== 'unsubscribe' ? first : undefined) ?? 'manual';
    }
  } else if (item.status === 'suppressed') {
    return first ?? 'manual';
  }
  if (question.topic !== undefined && topicStatus(item.topics, question.topic, aliases) === 'unsubscribed')
    return 'topic_unsubscribed';
  return undefined;
}

function topicStatus(topics: unknown, topic: string, aliases: TopicAliases): unknown {
  if (typeof topics !== 'object' || topics === null) return undefined;
  // A canonical name asked for is its alias's question.
  const asked = topicReadAs(topic, aliases);
  const states: Record<string, { status: string; changedAt: number }> = {};
  for (const name of storedTopicNames(asked, aliases)) {
    if (!Object.hasOwn(topics, name)) continue;
    const state = (topics as Record<string, unknown>)[name];
    if (typeof state !== 'object' || state === null) continue;
    const { status, changedAt } = state as Record<string, unknown>;
    if (typeof status !== 'string') continue;
    // A state without a time (never written so) loses to any dated one.
    states[name] = { status, changedAt: typeof changedAt === 'number' ? changedAt : Number.NEGATIVE_INFINITY };
  }
  return topicsUnderAliases(states, aliases)[asked]?.status;
}
