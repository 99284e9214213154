/**
 * The edge, transport-neutral: authenticate → normalize → admit each event → enqueue → answer.
 * The Lambda handler and the local HTTP front both feed it a WebhookRequest and send back its answer.
 *
 * The losslessness argument, in order:
 *  1. a 2xx is only returned after every actionable event is stored in the inbox;
 *  2. a stored row stays `pending`, and in the sweeper's index, until the consumer has applied it;
 *  3. so a crash or SendMessage failure after (1) is repaired by the provider's retry (a duplicate
 *     that finds its row not yet applied re-enqueues it) or, failing that, by the sweeper.
 * Duplicate enqueues are harmless because applying an event is idempotent. That is also why the edge
 * does not spend a third write per event marking rows "enqueued": the consumer's "applied" is the only
 * mark anything waits for.
 */
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

  /** `options` are never built from a request: only `ratchet ses redrive` passes them (see ReceiveOptions). */
  async receive(providerName: string, request: WebhookRequest, options?: ReceiveOptions): Promise<EdgeResponse> {
    try {
      return await this.handle(providerName, request, options);
    } catch (error) {
      return this.reject(providerName, error);
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

    const admissions = await settleWithLimit(actionable, this.deps.admitConcurrency ?? DEFAULT_ADMIT_CONCURRENCY, (e) =>
      inbox.admit(e, receivedAt),
    );
    const toSend: QueuedEvent[] = [];
    let admitted = 0;
    let duplicates = 0;
    let failed = 0;
    let refused: WebhookError | undefined;
    admissions.forEach((result, i) => {
      if (result.status === 'rejected') {
        if (isWebhookError(result.reason) && result.reason.status < 500) {
          refused = result.reason;
          return;
        }
        failed++;
        log.error('inbox admission failed', { provider, error: describe(result.reason) });
        return;
      }
      const outcome = result.value;
      if (outcome.admitted) admitted++;
      else duplicates++;
      // A duplicate whose row is not applied yet is the redelivery the losslessness argument relies on:
      // the earlier attempt may have died before its send.
      if (outcome.admitted || outcome.status !== 'applied') toSend.push(toQueued(outcome.pk, actionable[i]!));
    });

    counters.count('EventsAdmitted', admitted, provider);
    counters.count('EventsDuplicate', duplicates, provider);
    counters.count('EventsIgnored', ignored, provider);

    let enqueueFailed = false;
    if (toSend.length > 0) {
      try {
        await queue.send(toSend);
      } catch (error) {
        // Rows stay pending: the provider's retry or the sweeper will send them. Answer 5xx so the retry comes.
        enqueueFailed = true;
        log.error('enqueue failed; rows stay pending for redelivery or the sweeper', {
          provider,
          count: toSend.length,
          error: describe(error),
        });
      }
    }
    if (failed > 0 || enqueueFailed) {
      counters.count('TransientFailures', 1, provider);
      return { status: 503, body: { error: 'transient_failure' } };
    }
    // An event refused for good (too large to store) is answered with its 4xx, so the sender stops
    // retrying it; the others in the same request are stored and enqueued above as usual.
    if (refused) return this.reject(provider, refused);
    log.info('webhook accepted', { provider, received: events.length, admitted, duplicates, ignored });
    return { status: 200, body: { ok: true, received: events.length, admitted, duplicates, ignored } };
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

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
