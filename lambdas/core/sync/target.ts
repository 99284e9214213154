/**
 * The port behind which every outbound provider suppression API sits (sync): pure types, no I/O.
 * The adapters (lambdas/adapters/sync/<provider>.ts) implement it against each provider's REST API;
 * the sync worker decides *what* to push (from the suppression record) and *when* (rate limits,
 * backoff, dead letters), and only ever talks to a provider through this interface.
 */
import type { SuppressionReason } from '../suppression/record.js';

export const SYNC_PROVIDER_NAMES = ['ses', 'sendgrid', 'postmark', 'mailgun', 'resend'] as const;
export type SyncProviderName = (typeof SYNC_PROVIDER_NAMES)[number];

/**
 * One change for one provider. Every operation is idempotent at the provider: pushing it twice leaves
 * the provider's lists exactly as pushing it once (adapters turn "already there" / "already gone"
 * answers into success).
 */
export type SyncOperation =
  /** A global suppression: the provider must refuse every send to `email`. */
  | { readonly op: 'suppress'; readonly email: string; readonly reason: SuppressionReason }
  /**
   * An audited manual reactivation: remove `email` from the lists named (the lists Ratchet itself
   * pushed it to, as recorded in the record's `sync` map), and only those.
   */
  | { readonly op: 'unsuppress'; readonly email: string; readonly lists: readonly string[] }
  /** A topic opt-out pushed to one provider scope (`sendgrid:group:<id>`, `postmark:stream:<id>`). */
  | { readonly op: 'suppressScope'; readonly email: string; readonly scope: string }
  /** A topic opt-in: remove `email` from that scope's suppressions. */
  | { readonly op: 'unsuppressScope'; readonly email: string; readonly scope: string };

/** What a provider answered, recorded in the record's `sync` map and in the audit entry. */
export interface SyncOutcome {
  /**
   * The lists the address is now on (suppress) or was removed from (unsuppress), in the provider's own
   * words: `account` (SES), `global_unsubscribes`, `group:7`, `stream:outbound`, `complaints@mg.example.com` ...
   */
  readonly lists: readonly string[];
  /** The provider's representation of the reason where it differs from Ratchet's (SES `BOUNCE`). */
  readonly providerReason?: string;
  /**
   * Lists the provider refused to change for good (Postmark keeps `SpamComplaint` suppressions): reported
   * by `sync status` and `reconcile`, never retried.
   */
  readonly refused?: readonly { readonly list: string; readonly why: string }[];
}

/** An entry of one of the provider's lists, as `sync reconcile` pulls it. */
export interface ProviderListEntry {
  readonly email: string;
  /** The list it is on, in the same words as SyncOutcome.lists. */
  readonly list: string;
  /** Set when the entry stands for a topic opt-out (a SendGrid group, a Postmark stream used as a topic, a Postmark ManualSuppression). */
  readonly scope?: string;
  /**
   * Set on a scope entry whose list also receives global suppressions (a Postmark stream in
   * POSTMARK_STREAMS that TOPIC_ALIASES names as a topic): a global suppression explains it as well as
   * the topic's opt-out does, and it holds the global suppression at that list.
   */
  readonly globalList?: boolean;
  /** The provider's own reason text, as given. */
  readonly reason?: string;
  /** The provider's own date for the entry, epoch ms, when it has one. */
  readonly date?: number;
  /** Temporary refusals (SendGrid blocks): listed for information, never counted as drift. */
  readonly informational?: boolean;
}

export interface SyncTarget {
  readonly provider: SyncProviderName;
  /** Whether this provider can hold the topic scope (canonical name, after aliases are undone). */
  handlesScope(scope: string): boolean;
  /** Idempotent. Throws SyncRateLimitedError on 429, SyncTransientError on 5xx/network, SyncRefusedError on a permanent 4xx. */
  apply(operation: SyncOperation): Promise<SyncOutcome>;
  /**
   * Which operations may share one provider call, where the provider takes a list in one request
   * (SendGrid's `recipient_emails`, Postmark's `Suppressions` array, Mailgun's JSON list, Resend's
   * `batch/add`): two operations with the same key can go in one `applyMany`. Undefined: this operation
   * always goes alone. A target without it batches nothing.
   */
  batchKey?(operation: SyncOperation): string | undefined;
  /** The most operations one `applyMany` takes: the provider's own cap per request. */
  readonly maxBatch?: number;
  /**
   * Applies 2 to `maxBatch` operations that share one `batchKey`, in as few requests as the provider
   * allows (one per stream or domain where `apply` makes one each). Answers one entry per operation, in
   * order: the outcome `apply` would have answered, or a SyncRefusedError for an entry the provider
   * refused on its own while taking the others. Throws as `apply` does for the whole request: a 429, a
   * 5xx or network error, a refusal of the request itself (the caller then tries each operation alone,
   * so one address the provider will not take cannot sink the others). Idempotent, as `apply` is.
   */
  applyMany?(operations: readonly SyncOperation[]): Promise<ReadonlyArray<SyncOutcome | SyncRefusedError>>;
  /**
   * Asks the provider, with reads only, whether it already holds what `operation` would leave it holding:
   * the outcome `apply` would have answered when it does (record it as if pushed), undefined when the
   * operation is still to do. The worker asks before a push that may repeat one the provider already
   * applied (a redelivery, or the sweeper's second message after a crash), so a crash between the
   * provider's answer and its record pushes nothing twice. Throws the same errors as `apply`. A provider
   * that cannot be asked leaves it out, and is pushed again (every operation is idempotent).
   */
  held?(operation: SyncOperation): Promise<SyncOutcome | undefined>;
  /**
   * Whether `list` reads the list of this scope (one it handles). Absent: every scope it handles. Reconcile
   * expects a topic opt-out only in a scope it can see, so an unread one is never reported missing forever.
   */
  listsScope?(scope: string): boolean;
  /**
   * Every entry of every list Ratchet compares with, page by page. `onPage` follows every request the listing
   * makes, with what that request read (none, for an empty page, an empty list or a lookup), and is awaited
   * before the next request: so a caller that must not call during a shared pause (reconcile) can wait
   * between any two requests, also where a run of empty lists or pages reads nothing.
   */
  list(onPage: (entries: readonly ProviderListEntry[]) => Promise<void> | void): Promise<void>;
}

/**
 * Whether the operation lets mail through again (a reactivation, a topic opt-in). Someone is waiting on
 * it (an operator's audited decision, a person's consent), and until it lands the provider drops mail
 * Ratchet would send, so the worker's gate runs it ahead of a backlog (sync-gate.ts). Each one delays
 * the suppressions in that line by one call, no more: the provider's rate is kept either way.
 */
export function letsMailThrough(operation: SyncOperation): boolean {
  return operation.op === 'unsuppress' || operation.op === 'unsuppressScope';
}

/** The provider answered 429: no call to that provider before `retryAtMs` (from Retry-After or its reset header). */
export class SyncRateLimitedError extends Error {
  constructor(
    readonly provider: SyncProviderName,
    readonly retryAtMs: number,
  ) {
    super(`${provider} rate limit: retry at ${new Date(retryAtMs).toISOString()}`);
    this.name = 'SyncRateLimitedError';
  }
}

/**
 * The worker's own pace for this provider is spoken for until `retryAtMs` (its gate would hold the call
 * longer than it may): the provider was not called, and the slot at `retryAtMs` is reserved for this
 * message (sent again with it as its `turn`, message.ts). Waiting, like a 429, but the provider said
 * nothing, so nothing is paused or shared.
 */
export class SyncProviderBusyError extends SyncRateLimitedError {
  constructor(provider: SyncProviderName, retryAtMs: number) {
    super(provider, retryAtMs);
    this.message = `${provider} is at its rate for this worker: retry at ${new Date(retryAtMs).toISOString()}`;
    this.name = 'SyncProviderBusyError';
  }
}

/**
 * The provider's slots are reserved further ahead than a queue delay reaches (SYNC_BOOKING_HORIZON_MS):
 * nothing is reserved for this message. The change waits in the outbox instead, its marker due at
 * `retryAtMs`, and the sweeper sends it then; sent round the queue every 15 minutes it would cost a send,
 * a receive and a write each time, for every message of the backlog.
 */
export class SyncProviderBacklogError extends SyncProviderBusyError {
  constructor(provider: SyncProviderName, retryAtMs: number) {
    super(provider, retryAtMs);
    this.message = `${provider} is booked beyond the queue's delay for this worker: due again at ${new Date(retryAtMs).toISOString()}`;
    this.name = 'SyncProviderBacklogError';
  }
}

/** A 5xx, a timeout or a network error: retry later with backoff and jitter. */
export class SyncTransientError extends Error {
  constructor(
    readonly provider: SyncProviderName,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'SyncTransientError';
  }
}

/** A permanent refusal (a 4xx other than 429, a wrong key): never retried; reported and dead-lettered. */
export class SyncRefusedError extends Error {
  constructor(
    readonly provider: SyncProviderName,
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'SyncRefusedError';
  }
}
