/**
 * The pipeline's ports: what the edge and consumer logic need from the outside world.
 * DynamoDB and SQS implementations live in lambdas/adapters; this logic never imports an SDK.
 */
import type { NormalizedEvent } from '../event.js';
import type { ApplyResult, SuppressionRecord } from '../suppression/record.js';

/** What travels on the queue: the inbox key and the normalized event, never the raw payload (SQS caps at 256 KB). */
export interface QueuedEvent {
  pk: string;
  event: Omit<NormalizedEvent, 'raw'>;
}

/**
 * One inbox row, encoded and size-checked but not written yet. Events that share one raw payload (an
 * SES notification to several recipients) share one row: the payload is stored once, under `pk`.
 */
export interface PreparedRow {
  readonly pk: string;
  readonly events: readonly NormalizedEvent[];
}

export interface InboxStore {
  /**
   * Encodes the row for events sharing one raw payload. No I/O. Throws PayloadTooLargeError when it
   * could never be stored, so the edge refuses the event before anything is sent or written.
   */
  prepare(events: readonly NormalizedEvent[], receivedAtMs: number): PreparedRow;
  /**
   * Conditional put on `pk`: true when stored now, false when the row was already there (a duplicate).
   * An expired row that TTL has not deleted yet counts as absent.
   */
  store(row: PreparedRow): Promise<boolean>;
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
  /** Per-event detail: off at the default level (LOG_LEVEL=INFO), so it costs nothing in CloudWatch. */
  debug?(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** Counters for dashboards; the Lambda wiring backs this with Powertools EMF metrics. */
export interface Counters {
  count(name: string, value: number, provider: string): void;
  /** Writes what was counted: called once per invocation (one EMF record, not one per count). */
  flush?(): void;
}

/**
 * A write policy: given the record a guarded write just read (undefined: none), a result that writes
 * nothing, or undefined to apply the event as usual. The consumer chooses it (write-policy.ts); the
 * store asks it inside its read → apply → write loop, since only that loop knows whether a record exists.
 */
export type WriteSkip = (
  record: SuppressionRecord | undefined,
  event: Omit<NormalizedEvent, 'raw'>,
) => ApplyResult | undefined;

/** The suppression table behind a guarded write: read → core apply → conditional write, retried on conflict. */
export interface SuppressionStore {
  apply(
    event: Omit<NormalizedEvent, 'raw'>,
    skip?: WriteSkip,
  ): Promise<{ changed: boolean; effect: string; becameSuppressed: boolean }>;
}
