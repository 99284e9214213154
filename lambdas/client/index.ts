/**
 * `@ratchet-email/ratchet/client`: what sending code imports. Depends on @aws-sdk/client-dynamodb only.
 *
 *   import { isSuppressed, filterSendable } from '@ratchet-email/ratchet/client';
 *   if (await isSuppressed(to, { topic: 'newsletter' })) return;           // a newsletter
 *   if (await isSuppressed(to, { transactional: true })) return;           // a password reset
 *   const { sendable, suppressed } = await filterSendable(list, { topic: 'newsletter' });
 *   // The brake: nothing to the list while example.com is in breach (reason `sender_breach`).
 *   await filterSendable(list, { topic: 'newsletter', sender: 'example.com', brake: true });
 *   const { state, bounceRate } = await senderStatus('example.com');
 *
 * The module-level functions read their configuration from the environment (SUPPRESSION_TABLE,
 * AWS_REGION, DYNAMODB_ENDPOINT, TOPIC_ALIASES) on first use; createSuppressionClient takes options.
 */
import { createReputationClient, type ReputationClient, type SenderStatus } from './reputation.js';
import {
  createSuppressionClient,
  type FilterResult,
  type SendQuestion,
  type StoredSuppressionRecord,
  type SuppressionClient,
} from './suppressions.js';

export type { AuditEntry, Evidence, SuppressionReason, TopicState } from '../core/suppression/record.js';
export type { SuppressionClientOptions } from './config.js';
export type { ReputationClient, ReputationClientOptions, SenderStatus } from './reputation.js';
export type {
  FilterResult,
  RefusalReason,
  SendQuestion,
  StoredSuppressionRecord,
  SuppressionClient,
} from './suppressions.js';
export { createReputationClient, createSuppressionClient };

let shared: SuppressionClient | undefined;
let sharedReputation: ReputationClient | undefined;
/** One reputation cache for `senderStatus` and the brake: a minute's status serves both. */
const reputation = (): ReputationClient => (sharedReputation ??= createReputationClient());
const client = (): SuppressionClient => (shared ??= createSuppressionClient({ reputation: reputation() }));

/** True when this mail must not go to `email`. Throws on a read failure: callers choose to fail closed. */
export function isSuppressed(email: string, question?: SendQuestion): Promise<boolean> {
  return client().isSuppressed(email, question);
}

export function filterSendable(emails: readonly string[], question?: SendQuestion): Promise<FilterResult> {
  return client().filterSendable(emails, question);
}

/**
 * A sender's state (`ok`, `warn`, `breach`) and its 24-hour rates, as the evaluator last stored them;
 * cached a minute. Reads REPUTATION_TABLE (default `ratchet-reputation`).
 */
export function senderStatus(sender: string): Promise<SenderStatus> {
  return reputation().senderStatus(sender);
}

export function getRecord(email: string): Promise<StoredSuppressionRecord | undefined> {
  return client().getRecord(email);
}

export type { UnsubscribeLinkOptions, UnsubscribeUrlOptions } from './unsubscribe.js';
// One-click unsubscribe links (RFC 8058) for the mail this code sends.
export { issueUnsubscribeToken, LIST_UNSUBSCRIBE_POST, unsubscribeHeaders, unsubscribeUrl } from './unsubscribe.js';
