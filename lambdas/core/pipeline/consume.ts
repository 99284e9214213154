/**
 * The consumer, transport-neutral: apply one queued event through the ratchet. It reads nothing but
 * the message: the edge sent it before storing the raw payload, so the inbox row may not exist (the put
 * failed and the provider is retrying), and the event in the message is already verified. Applying is
 * idempotent, so the duplicate messages that retries produce change nothing.
 */
import { MalformedRequestError } from '../errors.js';
import { EVENT_KINDS } from '../event.js';
import { isRecord } from '../json.js';
import type { Counters, Log, QueuedEvent, SuppressionStore } from './ports.js';
import { skipWithoutRecord } from './write-policy.js';

export interface ConsumerDeps {
  suppressions: SuppressionStore;
  log: Log;
  counters: Counters;
}

export interface Consumed {
  provider: string;
  effect: string;
  changed: boolean;
}

export async function consumeMessage(deps: ConsumerDeps, body: string): Promise<Consumed> {
  const message = parseQueuedEvent(body);
  // No record and a plain delivery: nothing to write (write-policy.ts says what that one corner changes).
  const result = await deps.suppressions.apply(message.event, skipWithoutRecord);
  const provider = message.event.provider;
  deps.counters.count('EventsApplied', 1, provider);
  if (result.becameSuppressed) deps.counters.count('AddressesSuppressed', 1, provider);
  deps.log.debug?.('event applied', {
    provider,
    kind: message.event.kind,
    effect: result.effect,
    changed: result.changed,
  });
  return { provider, effect: result.effect, changed: result.changed };
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
