/**
 * The pipeline's ports: what the edge, consumer and sweeper logic need from the outside world.
 * DynamoDB and SQS implementations live in lambdas/adapters; this logic never imports an SDK.
 */
import type { NormalizedEvent } from '../event.js';

/**
 * `pending` until the consumer has applied the event, then `applied`. There is deliberately no
 * "enqueued" step: marking it would cost the edge a third round trip per event before it can answer,
 * and it would not tell more than `pending` does (a message can sit in the queue or the DLQ either way).
 */
export type InboxStatus = 'pending' | 'applied';

/** What travels on the queue: the inbox key and the normalized event, never the raw payload (SQS caps at 256 KB). */
export interface QueuedEvent {
  pk: string;
  event: Omit<NormalizedEvent, 'raw'>;
}

export type AdmitOutcome =
  | { admitted: true; pk: string }
  /** Already stored. Anything not yet `applied` is re-sent: the earlier attempt may never have reached the queue. */
  | { admitted: false; pk: string; status: InboxStatus };

/** An unapplied row the sweeper should re-send now, with how many times it already did. */
export interface DueRow extends QueuedEvent {
  resends: number;
}

export interface InboxStore {
  /** Conditional put keyed `provider#eventId`; an expired row that TTL has not deleted yet counts as absent. */
  admit(event: NormalizedEvent, receivedAtMs: number): Promise<AdmitOutcome>;
  /** pending → applied, and out of the sweeper's index. Never moves a row backwards. */
  markApplied(pk: string, appliedAtMs: number): Promise<void>;
  /** Unapplied rows whose re-send time has come (the sweeper's index, re-read consistently). */
  listDue(nowMs: number, limit: number): Promise<DueRow[]>;
  /**
   * After the sweeper re-sent a row: record the count and when to look again, or (`nextAtMs` null)
   * take the row out of the index for good. A row applied meanwhile is left alone.
   */
  scheduleResend(pk: string, resends: number, nextAtMs: number | null): Promise<void>;
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
