/**
 * The edge, transport-neutral: authenticate → normalize → enqueue → store → answer.
 * The Lambda handler and the local HTTP front both feed it a WebhookRequest and send back its answer.
 *
 * The losslessness argument ("enqueue before you store"; README, "How no event is lost"):
 *  1. every actionable event is sent to SQS first, then its raw payload is stored by a conditional put;
 *  2. a 2xx is returned only when both succeeded for every event; anything else is a 5xx, so the
 *     provider retries the whole request;
 *  3. so every stored row was already sent, and SQS's own retention, retries and DLQ deliver it: there is
 *     nothing to sweep and nothing to mark. A message whose put failed is still a verified event, and the
 *     consumer applies it from the message alone; the provider's retry stores the row.
 * A retry or duplicate costs one extra message, which the idempotent consumer absorbs.
 */
import { ignoredReasons } from '../classification.js';
import { isActionable, type NormalizedEvent } from '../event.js';
import {
  isWebhookError,
  PayloadTooLargeError,
  ProviderNotFoundError,
  TransientError,
  type WebhookError,
} from '../errors.js';
import type { CertificateSource, ControlMessage, NonceStore, ProviderDefinition, ReceiveOptions, WebhookProvider } from '../provider.js';
import type { WebhookRequest } from '../request.js';
import type { Clock } from '../time.js';
import { settleWithLimit } from './concurrency.js';
import type {
  ControlLedger,
  Counters,
  EventQueue,
  InboxStore,
  Log,
  PreparedRow,
  QueuedEvent,
  SecretSource,
  SubscriptionConfirmer,
} from './ports.js';

export interface EdgeDeps {
  providers: readonly ProviderDefinition[];
  secrets: SecretSource;
  inbox: InboxStore;
  queue: EventQueue;
  nonces: NonceStore;
  certificates: CertificateSource;
  confirmer: SubscriptionConfirmer;
  ledger: ControlLedger;
  now: Clock;
  settings: Readonly<Record<string, string | undefined>>;
  log: Log;
  counters: Counters;
  maxBodyBytes: number;
  /** Conditional puts in flight per request: a SendGrid batch holds ~1,500 events. */
  admitConcurrency?: number;
}

export interface EdgeResponse {
  status: number;
  body: Record<string, unknown>;
}

const DEFAULT_ADMIT_CONCURRENCY = 32;

export class WebhookEdge {
  /** Built providers, rebuilt only when the credentials list changes (rotation without redeploy). */
  private readonly built = new Map<string, { fingerprint: string; provider: WebhookProvider }>();

  constructor(private readonly deps: EdgeDeps) {}

  /**
   * One request, one invocation: the counters are flushed once, whatever the answer. `options` are
   * never built from a request: only `ratchet ses redrive` passes them (see ReceiveOptions).
   */
  async receive(providerName: string, request: WebhookRequest, options?: ReceiveOptions): Promise<EdgeResponse> {
    try {
      return await this.handle(providerName, request, options);
    } catch (error) {
      return this.reject(providerName, error);
    } finally {
      this.deps.counters.flush?.();
    }
  }

  private async handle(providerName: string, request: WebhookRequest, options?: ReceiveOptions): Promise<EdgeResponse> {
    if (request.body.length > this.deps.maxBodyBytes) throw new PayloadTooLargeError('body exceeds the size cap');
    const provider = await this.provider(providerName);
    const receipt = await provider.receive(request, options);
    if (receipt.control) return this.control(providerName, receipt.control);
    return this.admit(providerName, receipt.events);
  }

  private async provider(name: string): Promise<WebhookProvider> {
    const definition = this.deps.providers.find((p) => p.name === name);
    if (!definition) throw new ProviderNotFoundError('unknown provider');
    let credentials: string[];
    try {
      credentials = await this.deps.secrets.credentials(definition);
    } catch (cause) {
      throw new TransientError('could not load provider credentials', { cause });
    }
    // Closed by default: no credentials means no route, never "accept unsigned".
    if (credentials.length === 0) throw new ProviderNotFoundError('provider is not configured');
    const fingerprint = credentials.join('\n');
    const cached = this.built.get(name);
    if (cached && cached.fingerprint === fingerprint) return cached.provider;
    const provider = definition.create({
      credentials,
      now: this.deps.now,
      nonces: this.deps.nonces,
      certificates: this.deps.certificates,
      settings: this.deps.settings,
    });
    this.built.set(name, { fingerprint, provider });
    return provider;
  }

  private async admit(provider: string, events: NormalizedEvent[]): Promise<EdgeResponse> {
    const { inbox, queue, log, counters, now } = this.deps;
    const actionable = events.filter(isActionable);
    const ignored = events.length - actionable.length;
    const receivedAt = now();

    // Encode first (no I/O): an event that can never be stored is refused before anything is sent.
    const rows: PreparedRow[] = [];
    let refused: WebhookError | undefined;
    for (const group of groupByRaw(actionable)) {
      try {
        rows.push(inbox.prepare(group, receivedAt));
      } catch (error) {
        if (!isWebhookError(error) || error.status >= 500) throw error;
        refused = error;
      }
    }

    if (rows.length > 0) {
      try {
        await queue.send(rows.flatMap((row) => row.events.map((e) => toQueued(row.pk, e))));
      } catch (error) {
        // Nothing is stored yet; whatever did reach the queue is a verified event the consumer may apply.
        log.error('enqueue failed; nothing stored, the provider will retry', { provider, error: describe(error) });
        counters.count('TransientFailures', 1, provider);
        return { status: 503, body: { error: 'transient_failure' } };
      }
    }

    const stored = await settleWithLimit(rows, this.deps.admitConcurrency ?? DEFAULT_ADMIT_CONCURRENCY, (row) => inbox.store(row));
    let admitted = 0;
    let duplicates = 0;
    let failed = 0;
    stored.forEach((result, i) => {
      const count = rows[i]!.events.length;
      if (result.status === 'rejected') {
        failed++;
        log.error('inbox put failed after the send; the provider will retry', { provider, error: describe(result.reason) });
      } else if (result.value) admitted += count;
      else duplicates += count;
    });

    counters.count('EventsAdmitted', admitted, provider);
    counters.count('EventsDuplicate', duplicates, provider);
    counters.count('EventsIgnored', ignored, provider);
    if (failed > 0) {
      counters.count('TransientFailures', 1, provider);
      return { status: 503, body: { error: 'transient_failure' } };
    }
    // An event refused for good (too large to store) is answered with its 4xx, so the sender stops
    // retrying it; the others in the same request are enqueued and stored above as usual.
    if (refused) return this.reject(provider, refused);
    const reasons = ignoredReasons(events);
    log.info('webhook accepted', { provider, received: events.length, admitted, duplicates, ignored, ignoredReasons: reasons });
    // Why events were ignored, for whoever sent them (a test send to a malformed address says so).
    return { status: 200, body: { ok: true, received: events.length, admitted, duplicates, ignored, ...(ignored > 0 ? { ignoredReasons: reasons } : {}) } };
  }

  private async control(provider: string, message: ControlMessage): Promise<EdgeResponse> {
    const { log, counters } = this.deps;
    if (message.type === 'UnsubscribeConfirmation') {
      // Someone unsubscribed our endpoint. Acting on it automatically would let a message undo our own
      // subscription, so we only make it loud: a log line and a metric to alarm on.
      log.warn('SNS UnsubscribeConfirmation received; no action taken', { topicArn: message.topicArn });
      counters.count('UnsubscribeConfirmations', 1, provider);
      return { status: 200, body: { ok: true, control: 'UnsubscribeConfirmation' } };
    }
    const key = `sns-subscription#${message.messageId}`;
    try {
      if (await this.deps.ledger.isDone(key)) {
        return { status: 200, body: { ok: true, control: 'SubscriptionConfirmation', alreadyConfirmed: true } };
      }
      await this.deps.confirmer.confirm(message.topicArn, message.token);
      await this.deps.ledger.markDone(key, this.deps.now());
    } catch (cause) {
      throw isWebhookError(cause) ? cause : new TransientError('subscription confirmation failed', { cause });
    }
    log.info('SNS subscription confirmed', { topicArn: message.topicArn });
    counters.count('SubscriptionsConfirmed', 1, provider);
    return { status: 200, body: { ok: true, control: 'SubscriptionConfirmation' } };
  }

  private reject(provider: string, error: unknown): EdgeResponse {
    if (isWebhookError(error)) {
      const level = error.status >= 500 ? 'error' : 'warn';
      this.deps.log[level]('webhook rejected', { provider, status: error.status, code: error.code, reason: error.message });
      this.deps.counters.count(error.status >= 500 ? 'TransientFailures' : 'RequestsRejected', 1, provider);
      return { status: error.status, body: { error: error.code } };
    }
    // Anything unexpected is ours to fix, and the provider should keep the event: 500, so it retries.
    this.deps.log.error('unexpected edge failure', { provider, error: describe(error) });
    this.deps.counters.count('TransientFailures', 1, provider);
    return { status: 500, body: { error: 'internal_error' } };
  }
}

function toQueued(pk: string, event: NormalizedEvent): QueuedEvent {
  const { raw: _raw, ...rest } = event;
  return { pk, event: rest };
}

/**
 * Events carrying the same raw payload (one SES notification to several recipients) form one row, so
 * the payload is stored once. The order is the provider's, so a retry of the request builds the same
 * rows under the same keys.
 */
function groupByRaw(events: readonly NormalizedEvent[]): NormalizedEvent[][] {
  const groups = new Map<string, NormalizedEvent[]>();
  for (const event of events) {
    const group = groups.get(event.raw);
    if (group) group.push(event);
    else groups.set(event.raw, [event]);
  }
  return [...groups.values()];
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
