/**
 * The consumer, transport-neutral: apply one queued event through the ratchet, then mark its inbox
 * row applied. Marking comes second on purpose: if we crash in between, the message is retried and
 * re-applying is a no-op (the ratchet is idempotent), whereas marking first could lose the effect.
 */
import type { Clock } from '../time.js';
import { MalformedRequestError } from '../errors.js';
import { isRecord } from '../json.js';
import type { Counters, InboxStore, Log, QueuedEvent, SuppressionStore } from './ports.js';
import { EVENT_KINDS } from '../event.js';

export interface ConsumerDeps {
  inbox: InboxStore;
  suppressions: SuppressionStore;
  now: Clock;
  log: Log;
  counters: Counters;
}

export async function consumeMessage(deps: ConsumerDeps, body: string): Promise<void> {
  const message = parseQueuedEvent(body);
  const result = await deps.suppressions.apply(message.event);
  await deps.inbox.markApplied(message.pk, deps.now());
  const provider = message.event.provider;
  deps.counters.count('EventsApplied', 1, provider);
  if (result.becameSuppressed) deps.counters.count('AddressesSuppressed', 1, provider);
  deps.log.info('event applied', { provider, kind: message.event.kind, effect: result.effect });
}

/** Queue bodies are ours, but a poison message must fail loudly (and reach the DLQ), not half-apply. */
export function parseQueuedEvent(body: string): QueuedEvent {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw new MalformedRequestError('queue message is not JSON');
  }
  if (!isRecord(value) || typeof value.pk !== 'string' || !isRecord(value.event)) {
    throw new MalformedRequestError('queue message has no pk/event');
  }
  const event = value.event;
  if (
    typeof event.provider !== 'string' ||
    typeof event.eventId !== 'string' ||
    typeof event.recipient !== 'string' ||
    typeof event.occurredAt !== 'number' ||
    !(EVENT_KINDS as readonly unknown[]).includes(event.kind) ||
    event.kind === 'ignored'
  ) {
    throw new MalformedRequestError('queue message event is not a normalized actionable event');
  }
  return value as unknown as QueuedEvent;
}
