/**
 * The pipeline's ports: what the edge, consumer and sweeper logic need from the outside world.
 * DynamoDB and SQS implementations live in lambdas/adapters; this logic never imports an SDK.
 */
import type { NormalizedEvent } from '../event.js';

export type InboxStatus = 'pending' | 'enqueued' | 'applied';

/** What travels on the queue: the inbox key and the normalized event, never the raw payload (SQS caps at 256 KB). */
export interface QueuedEvent {
  pk: string;
  event: Omit<NormalizedEvent, 'raw'>;
}

export type AdmitOutcome =
  | { admitted: true; pk: string }
  /** Already stored. `status` tells whether the earlier attempt got as far as the queue. */
  | { admitted: false; pk: string; status: InboxStatus };

export interface InboxStore {
  /** Conditional put keyed `provider#eventId`; an expired row that TTL has not deleted yet counts as absent. */
  admit(event: NormalizedEvent, receivedAtMs: number): Promise<AdmitOutcome>;
  /** pending → enqueued, and out of the sweeper's index. A lost race with `markApplied` is fine. */
  markEnqueued(pk: string): Promise<void>;
  markApplied(pk: string, appliedAtMs: number): Promise<void>;
  /** Rows still pending since before `olderThanMs`, for the sweeper. */
  listPending(olderThanMs: number, limit: number): Promise<QueuedEvent[]>;
}

export interface EventQueue {
  /** Sends all messages or throws (TransientError) naming none as sent: callers treat a throw as "maybe sent". */
  send(messages: readonly QueuedEvent[]): Promise<void>;
}

/** Where the credentials list of each provider comes from (environment locally, Secrets Manager in AWS). */
export interface SecretSource {
  credentials(provider: { name: string; credentialsVariable: string; secretArnVariable?: string }): Promise<string[]>;
}

/** SNS subscription confirmation through the API (`ConfirmSubscription`), never by GETting a URL from a message. */
export interface SubscriptionConfirmer {
  confirm(topicArn: string, token: string): Promise<void>;
}

/** A tiny ledger so a control action (confirming a subscription) happens once per SNS message. */
export interface ControlLedger {
  isDone(key: string): Promise<boolean>;
  markDone(key: string, nowMs: number): Promise<void>;
}

/** Structured logging, with request data already redacted by the caller. */
export interface Log {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** Counters for dashboards; the Lambda wiring backs this with Powertools EMF metrics. */
export interface Counters {
  count(name: string, value: number, provider: string): void;
}

/** The suppression table behind a guarded write: read → core apply → conditional write, retried on conflict. */
export interface SuppressionStore {
  apply(event: Omit<NormalizedEvent, 'raw'>): Promise<{ changed: boolean; effect: string; becameSuppressed: boolean }>;
}
