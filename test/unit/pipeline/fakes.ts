/** In-memory port implementations for unit-testing the pipeline logic without any emulator. */
import type { NormalizedEvent } from '../../../lambdas/core/event.js';
import { AuthenticationError, PayloadTooLargeError } from '../../../lambdas/core/errors.js';
import type { ProviderDefinition, WebhookProvider } from '../../../lambdas/core/provider.js';
import type {
  AdmitOutcome,
  ControlLedger,
  DueRow,
  EventQueue,
  InboxStatus,
  InboxStore,
  QueuedEvent,
  SubscriptionConfirmer,
} from '../../../lambdas/core/pipeline/ports.js';
import { WebhookEdge, type EdgeDeps } from '../../../lambdas/core/pipeline/edge.js';
import { MemoryCounters } from '../../../lambdas/adapters/observability.js';

/** Mirrors DynamoInbox: a row is due for the sweeper at `resendAt` until applied or given up on. */
export class MemoryInbox implements InboxStore {
  rows = new Map<
    string,
    { event: NormalizedEvent; status: InboxStatus; receivedAt: number; resends: number; resendAt?: number; abandoned?: boolean }
  >();
  failAdmitFor = new Set<string>();
  refuseAdmitFor = new Set<string>();
  constructor(private readonly resendAfterMs = 5_000) {}
  async admit(event: NormalizedEvent, receivedAtMs: number): Promise<AdmitOutcome> {
    if (this.failAdmitFor.has(event.eventId)) throw new Error('inbox down');
    if (this.refuseAdmitFor.has(event.eventId)) throw new PayloadTooLargeError('too large to store');
    const pk = `${event.provider}#${event.eventId}`;
    const existing = this.rows.get(pk);
    if (existing) return { admitted: false, pk, status: existing.status };
    this.rows.set(pk, { event, status: 'pending', receivedAt: receivedAtMs, resends: 0, resendAt: receivedAtMs + this.resendAfterMs });
    return { admitted: true, pk };
  }
  async markApplied(pk: string) {
    const row = this.rows.get(pk);
    if (row) {
      row.status = 'applied';
      delete row.resendAt;
    }
  }
  async listDue(nowMs: number, limit: number): Promise<DueRow[]> {
    return [...this.rows.entries()]
      .filter(([, r]) => r.status !== 'applied' && r.resendAt !== undefined && r.resendAt <= nowMs)
      .slice(0, limit)
      .map(([pk, r]) => {
        const { raw: _raw, ...event } = r.event;
        return { pk, event, resends: r.resends };
      });
  }
  async scheduleResend(pk: string, resends: number, nextAtMs: number | null) {
    const row = this.rows.get(pk);
    if (!row || row.status === 'applied') return;
    row.resends = resends;
    if (nextAtMs === null) {
      delete row.resendAt;
      row.abandoned = true;
    } else {
      row.resendAt = nextAtMs;
    }
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
    raw: '{}',
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
  const inbox = new MemoryInbox();
  const queue = new MemoryQueue();
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
