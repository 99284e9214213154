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

import { isWebhookError, PayloadTooLargeError, ProviderNotFoundError, TransientError } from '../errors.js';
import type { NormalizedEvent } from '../event.js';
import type {
  CertificateSource,
  ControlMessage,
  NonceStore,
  ProviderDefinition,
  Receipt,
  ReceiveOptions,
  WebhookProvider,
} from '../provider.js';
import type { WebhookRequest } from '../request.js';
import type { Clock } from '../time.js';
import { admitAll, describe } from './admission.js';
import { settleWithLimit } from './concurrency.js';
import { keyedByContent } from './content-key.js';
import type {
  ControlLedger,
  Counters,
  EventQueue,
  InboxStore,
  Log,
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
    return this.admit(providerName, this.keyed(providerName, receipt.events));
  }

  /**
   * Several requests for one provider at once (the SES feed's SQS batch), each answered exactly as
   * `receive` would answer it alone, in order. Every request is verified on its own; the events of all
   * that verified are admitted together (one send, then the puts: see admission.ts), which is what
   * makes a batch of 10 cost about what one request costs. Never throws. The counters are not flushed:
   * the caller flushes once per invocation, after adding its own. The caller also logs the batch's
   * summary: a request's `webhook accepted` line is DEBUG here (rejections keep their WARN/ERROR).
   */
  async receiveBatch(providerName: string, requests: readonly WebhookRequest[]): Promise<EdgeResponse[]> {
    const answers: EdgeResponse[] = new Array(requests.length);
    let provider: WebhookProvider;
    try {
      provider = await this.provider(providerName);
    } catch (error) {
      return requests.map(() => this.reject(providerName, error));
    }
    const receipts: Array<Receipt | undefined> = new Array(requests.length);
    // Verification is CPU plus one cached certificate (fetched once however many ask at once).
    await settleWithLimit([...requests.keys()], requests.length, async (index) => {
      const request = requests[index]!;
      try {
        if (request.body.length > this.deps.maxBodyBytes) throw new PayloadTooLargeError('body exceeds the size cap');
        receipts[index] = await provider.receive(request);
      } catch (error) {
        answers[index] = this.reject(providerName, error);
      }
    });
    const admissions: Array<{ index: number; events: NormalizedEvent[] }> = [];
    for (const [index, receipt] of receipts.entries()) {
      if (!receipt) continue;
      // One at a time: the same confirmation twice in a batch must find the ledger's first mark.
      if (receipt.control)
        answers[index] = await this.control(providerName, receipt.control).catch((error: unknown) =>
          this.reject(providerName, error),
        );
      else admissions.push({ index, events: this.keyed(providerName, receipt.events) });
    }
    try {
      const admitted = await this.admitAll(
        providerName,
        admissions.map((a) => a.events),
        true,
      );
      for (const [k, answer] of admitted.entries()) answers[admissions[k]!.index] = answer;
    } catch (error) {
      for (const { index } of admissions) answers[index] = this.reject(providerName, error);
    }
    return answers;
  }

  /**
   * A provider whose event ids change under retries (`keysByContent`) has its events keyed by what they
   * say instead (content-key.ts), so a copy under a new id is one row and one evidence entry.
   */
  private keyed(providerName: string, events: NormalizedEvent[]): NormalizedEvent[] {
    const byContent = this.deps.providers.find((p) => p.name === providerName)?.keysByContent === true;
    return byContent ? events.map(keyedByContent) : events;
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
    return (await this.admitAll(provider, [events]))[0]!;
  }

  private admitAll(
    provider: string,
    eventLists: NormalizedEvent[][],
    summarizedByCaller = false,
  ): Promise<EdgeResponse[]> {
    const { inbox, queue, log, counters, now } = this.deps;
    const admitConcurrency = this.deps.admitConcurrency ?? DEFAULT_ADMIT_CONCURRENCY;
    return admitAll(
      { inbox, queue, log, counters, now, admitConcurrency, summarizedByCaller },
      provider,
      eventLists,
      (p, error) => this.reject(p, error),
    );
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
      this.deps.log[level]('webhook rejected', {
        provider,
        status: error.status,
        code: error.code,
        reason: error.message,
      });
      this.deps.counters.count(error.status >= 500 ? 'TransientFailures' : 'RequestsRejected', 1, provider);
      return { status: error.status, body: { error: error.code } };
    }
    // Anything unexpected is ours to fix, and the provider should keep the event: 500, so it retries.
    this.deps.log.error('unexpected edge failure', { provider, error: describe(error) });
    this.deps.counters.count('TransientFailures', 1, provider);
    return { status: 500, body: { error: 'internal_error' } };
  }
}
