/**
 * In-memory port implementations for unit-testing the pipeline logic without any emulator. Each passes
 * the same contract as its real adapter (test/contracts, run in fakes-contract.test.ts and
 * test/integration/stores.test.ts), so what the unit tests learn from them holds for the real tables.
 */
import { deflateRawSync } from 'node:zlib';
import { MAX_ITEM_BYTES } from '../../../lambdas/adapters/dynamodb-inbox.js';
import { MemoryCounters } from '../../../lambdas/adapters/observability.js';
import {
  AuthenticationError,
  PayloadTooLargeError,
  TransientError,
  WebhookError,
} from '../../../lambdas/core/errors.js';
import type { NormalizedEvent } from '../../../lambdas/core/event.js';
import { type EdgeDeps, WebhookEdge } from '../../../lambdas/core/pipeline/edge.js';
import type {
  ControlLedger,
  EventQueue,
  InboxStore,
  PreparedRow,
  QueuedEvent,
  SubscriptionConfirmer,
  SuppressionStore,
  WriteSkip,
} from '../../../lambdas/core/pipeline/ports.js';
import type { ProviderDefinition, WebhookProvider } from '../../../lambdas/core/provider.js';
import {
  type ApplyResult,
  applyEvent,
  DEFAULT_RATCHET_POLICY,
  type RatchetPolicy,
  type SuppressionRecord,
} from '../../../lambdas/core/suppression/index.js';

const THIRTY_DAYS_SECONDS = 30 * 86_400;

/**
 * Mirrors DynamoInbox: one row per raw payload, keyed by its first event, written by a conditional put
 * that treats a row past its TTL as absent. Refuses payloads that stay over DynamoDB's item limit once
 * deflated (the real codec adds a few bytes more; the contract keeps well clear of the edge).
 */
export class MemoryInbox implements InboxStore {
  rows = new Map<string, { events: readonly NormalizedEvent[]; raw: string; receivedAt: number; expiresAt: number }>();
  failStoreFor = new Set<string>();
  /** Stores to fail next, whatever their row (as the table being down would). */
  failNextStores = 0;
  refuseFor = new Set<string>();
  /** Every store call, in order, with what the queue held at that moment (to check the send came first). */
  storeCalls: Array<{ pk: string; queuedBefore: number }> = [];
  constructor(
    private readonly queue?: MemoryQueue,
    private readonly ttlSeconds = THIRTY_DAYS_SECONDS,
  ) {}
  prepare(events: readonly NormalizedEvent[], receivedAt: number): PreparedRow & { receivedAt: number } {
    const first = events[0];
    if (!first) throw new TypeError('an inbox row needs at least one event');
    if (events.some((e) => this.refuseFor.has(e.eventId)) || deflateRawSync(first.raw).length > MAX_ITEM_BYTES) {
      throw new PayloadTooLargeError('too large to store');
    }
    return { pk: `${first.provider}#${first.eventId}`, events, receivedAt };
  }
  async store(row: PreparedRow & { receivedAt?: number }): Promise<boolean> {
    this.storeCalls.push({ pk: row.pk, queuedBefore: this.queue?.sent.length ?? 0 });
    if (this.failNextStores > 0 || row.events.some((e) => this.failStoreFor.has(e.eventId))) {
      this.failNextStores = Math.max(0, this.failNextStores - 1);
      throw new TransientError('inbox down');
    }
    const receivedAt = row.receivedAt ?? 0;
    const nowSeconds = Math.floor(receivedAt / 1000);
    if ((this.rows.get(row.pk)?.expiresAt ?? -Infinity) >= nowSeconds) return false;
    this.rows.set(row.pk, {
      events: row.events,
      raw: row.events[0]!.raw,
      receivedAt,
      expiresAt: nowSeconds + this.ttlSeconds,
    });
    return true;
  }
}

/** An inbox whose prepare throws `failure` for the event `bad`, and works as MemoryInbox otherwise. */
export class PrepareFailingInbox extends MemoryInbox {
  constructor(private readonly failure: unknown) {
    super();
  }
  override prepare(events: readonly NormalizedEvent[], receivedAt: number) {
    if (events[0]!.eventId === 'bad') throw this.failure;
    return super.prepare(events, receivedAt);
  }
}

/** A WebhookError with a 500: none exists in errors.ts today, but the edge must treat it as a 5xx. */
export class StoreBugError extends WebhookError {
  readonly status = 500;
  readonly code = 'store_bug';
}

export class MemoryQueue implements EventQueue {
  sent: QueuedEvent[] = [];
  failNext = 0;
  async send(messages: readonly QueuedEvent[]) {
    if (this.failNext > 0) {
      this.failNext--;
      throw new TransientError('queue down');
    }
    this.sent.push(...messages);
  }
}

export class MemoryLedger implements ControlLedger {
  done = new Set<string>();
  async isDone(key: string) {
    return this.done.has(key);
  }
  async markDone(key: string) {
    this.done.add(key);
  }
}

/**
 * Mirrors DynamoSuppressionStore: read, pure ratchet, write guarded by the version read. The read yields
 * like I/O does, so concurrent applies interleave as they do against DynamoDB and the loser re-applies.
 */
export class MemorySuppressionStore implements SuppressionStore {
  records = new Map<string, { record: SuppressionRecord; version: number }>();
  constructor(private readonly policy: RatchetPolicy = DEFAULT_RATCHET_POLICY) {}
  async apply(event: Omit<NormalizedEvent, 'raw'>, skip?: WriteSkip): Promise<ApplyResult> {
    for (;;) {
      const read = this.records.get(event.recipient);
      await Promise.resolve();
      const result = skip?.(read?.record, event) ?? applyEvent(read?.record, { ...event, raw: '' }, this.policy);
      if (!result.changed) return result;
      if (this.records.get(event.recipient)?.version !== read?.version) continue;
      this.records.set(event.recipient, { record: result.record, version: (read?.version ?? 0) + 1 });
      return result;
    }
  }
}

export class RecordingConfirmer implements SubscriptionConfirmer {
  calls: Array<[string, string]> = [];
  fail = false;
  async confirm(topicArn: string, token: string) {
    if (this.fail) throw new Error('sns down');
    this.calls.push([topicArn, token]);
  }
}

export function event(overrides: Partial<NormalizedEvent> = {}): NormalizedEvent {
  return {
    provider: 'fake',
    eventId: 'e1',
    recipient: 'a@example.com',
    kind: 'hard_bounce',
    occurredAt: 1_700_000_000_000,
    detail: {},
    // Distinct per event by default: events sharing a raw payload share one inbox row.
    raw: JSON.stringify({ id: overrides.eventId ?? 'e1' }),
    ...overrides,
  };
}

/**
 * A fake provider whose behaviour is chosen by the body: `{"events":[...]}` returns those events,
 * `{"control":{...}}` a control message, anything else without the right `x-key` header is rejected.
 */
export function fakeProvider(created: { count: number; credentials: string[][] }): ProviderDefinition {
  return {
    name: 'fake',
    credentialsVariable: 'FAKE_KEYS',
    settings: [],
    create(deps): WebhookProvider {
      created.count++;
      created.credentials.push([...deps.credentials]);
      return {
        name: 'fake',
        async receive(request) {
          if (!deps.credentials.includes(request.headers['x-key'] ?? '')) throw new AuthenticationError('bad key');
          const body = JSON.parse(request.body.toString('utf8'));
          if (body.crash) throw new TypeError('bug');
          return body.control ? { events: [], control: body.control } : { events: body.events };
        },
      };
    },
  };
}

export function edgeWith(overrides: Partial<EdgeDeps> = {}) {
  const queue = new MemoryQueue();
  const inbox = new MemoryInbox(queue);
  const ledger = new MemoryLedger();
  const confirmer = new RecordingConfirmer();
  const counters = new MemoryCounters();
  const created = { count: 0, credentials: [] as string[][] };
  let credentials = ['k1'];
  const deps: EdgeDeps = {
    providers: [fakeProvider(created)],
    secrets: { credentials: async () => credentials },
    inbox,
    queue,
    nonces: { claim: async () => true },
    certificates: {
      get: async () => {
        throw new Error('unused');
      },
    },
    confirmer,
    ledger,
    now: () => 1_700_000_100_000,
    settings: {},
    log: { info: () => undefined, warn: () => undefined, error: () => undefined },
    counters,
    maxBodyBytes: 1024,
    ...overrides,
  };
  return {
    edge: new WebhookEdge(deps),
    inbox,
    queue,
    ledger,
    confirmer,
    counters,
    created,
    setCredentials: (next: string[]) => {
      credentials = next;
    },
  };
}

export function request(body: unknown, key = 'k1') {
  return { body: Buffer.from(JSON.stringify(body)), headers: { 'x-key': key } };
}
