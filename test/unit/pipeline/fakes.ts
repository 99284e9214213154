/** In-memory port implementations for unit-testing the pipeline logic without any emulator. */
import type { NormalizedEvent } from '../../../lambdas/core/event.js';
import { AuthenticationError, PayloadTooLargeError } from '../../../lambdas/core/errors.js';
import type { ProviderDefinition, WebhookProvider } from '../../../lambdas/core/provider.js';
import type {
  ControlLedger,
  EventQueue,
  InboxStore,
  PreparedRow,
  QueuedEvent,
  SubscriptionConfirmer,
} from '../../../lambdas/core/pipeline/ports.js';
import { WebhookEdge, type EdgeDeps } from '../../../lambdas/core/pipeline/edge.js';
import { MemoryCounters } from '../../../lambdas/adapters/observability.js';

/** Mirrors DynamoInbox: one row per raw payload, keyed by its first event, written by a conditional put. */
export class MemoryInbox implements InboxStore {
  rows = new Map<string, { events: readonly NormalizedEvent[]; raw: string; receivedAt: number }>();
  failStoreFor = new Set<string>();
  refuseFor = new Set<string>();
  /** Every store call, in order, with what the queue held at that moment (to check the send came first). */
  storeCalls: Array<{ pk: string; queuedBefore: number }> = [];
  constructor(private readonly queue?: MemoryQueue) {}
  prepare(events: readonly NormalizedEvent[], receivedAt: number): PreparedRow & { receivedAt: number } {
    if (events.some((e) => this.refuseFor.has(e.eventId))) throw new PayloadTooLargeError('too large to store');
    return { pk: `${events[0]!.provider}#${events[0]!.eventId}`, events, receivedAt };
  }
  async store(row: PreparedRow & { receivedAt?: number }): Promise<boolean> {
    this.storeCalls.push({ pk: row.pk, queuedBefore: this.queue?.sent.length ?? 0 });
    if (row.events.some((e) => this.failStoreFor.has(e.eventId))) throw new Error('inbox down');
    if (this.rows.has(row.pk)) return false;
    this.rows.set(row.pk, { events: row.events, raw: row.events[0]!.raw, receivedAt: row.receivedAt ?? 0 });
    return true;
  }
}

export class MemoryQueue implements EventQueue {
  sent: QueuedEvent[] = [];
  failNext = 0;
  async send(messages: readonly QueuedEvent[]) {
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error('queue down');
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
    certificates: { get: async () => { throw new Error('unused'); } },
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
