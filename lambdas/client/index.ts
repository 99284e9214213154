/**
 * `@ratchet-email/ratchet/client`: what sending code imports. Depends on @aws-sdk/client-dynamodb only.
 *
 *   import { isSuppressed, filterSendable } from '@ratchet-email/ratchet/client';
 *   if (await isSuppressed(to, { topic: 'newsletter' })) return;           // a newsletter
 *   if (await isSuppressed(to, { transactional: true })) return;           // a password reset
 *   const { sendable, suppressed } = await filterSendable(list, { topic: 'newsletter' });
 *
 * The module-level functions read their configuration from the environment (SUPPRESSION_TABLE,
 * AWS_REGION, DYNAMODB_ENDPOINT, TOPIC_ALIASES) on first use; createSuppressionClient takes options.
 */
import type { SendQuestion } from '../core/suppression/answer.js';
import {
  createSuppressionClient,
  type FilterResult,
  type StoredSuppressionRecord,
  type SuppressionClient,
} from './suppressions.js';

export type { AuditEntry, Evidence, SuppressionReason, TopicState } from '../core/suppression/record.js';
export type { SuppressionClientOptions } from './config.js';
export type {
  FilterResult,
  RefusalReason,
  SendQuestion,
  StoredSuppressionRecord,
  SuppressionClient,
} from './suppressions.js';
export { createSuppressionClient };

let shared: SuppressionClient | undefined;
const client = (): SuppressionClient => (shared ??= createSuppressionClient());

/** True when this mail must not go to `email`. Throws on a read failure: callers choose to fail closed. */
export function isSuppressed(email: string, question?: SendQuestion): Promise<boolean> {
  return client().isSuppressed(email, question);
}

export function filterSendable(emails: readonly string[], question?: SendQuestion): Promise<FilterResult> {
  return client().filterSendable(emails, question);
}

export function getRecord(email: string): Promise<StoredSuppressionRecord | undefined> {
  return client().getRecord(email);
}

export type { UnsubscribeLinkOptions, UnsubscribeUrlOptions } from './unsubscribe.js';
// One-click unsubscribe links (RFC 8058) for the mail this code sends.
export { issueUnsubscribeToken, LIST_UNSUBSCRIBE_POST, unsubscribeHeaders, unsubscribeUrl } from './unsubscribe.js';
