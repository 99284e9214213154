/**
 * The EventQueue port's contract, run against MemoryQueue (unit) and SqsEventQueue on fauxqs
 * (integration): what is sent is what the consumer receives, whole, however many messages.
 */
import { describe, expect, it } from 'vitest';
import { TransientError } from '../../lambdas/core/errors.js';
import type { EventQueue, QueuedEvent } from '../../lambdas/core/pipeline/ports.js';
import { uniqueId } from './unique-id.js';

export interface QueueSubject {
  queue: EventQueue;
  /** Everything on the queue now, as parsed messages, in any order; each message once. */
  receiveAll(): Promise<QueuedEvent[]>;
  /** Makes the next send fail as SQS refusing the call would (throttled, unavailable): nothing is sent. */
  failNextSend(): void;
}

function message(eventId: string, overrides: Partial<QueuedEvent['event']> = {}): QueuedEvent {
  return {
    pk: `contract#${eventId}`,
    event: {
      provider: 'contract',
      eventId,
      recipient: 'queue@example.com',
      kind: 'soft_bounce',
      occurredAt: 1_700_000_000_000,
      detail: {},
      ...overrides,
    },
  };
}

const byPk = (a: QueuedEvent, b: QueuedEvent) => a.pk.localeCompare(b.pk);

/** `make()` gives a store over an empty queue of its own. */
export function describeEventQueueContract(name: string, make: () => QueueSubject | Promise<QueueSubject>) {
  describe(`EventQueue contract: ${name}`, () => {
    it('a sent message is received with its key and event intact', async () => {
      const { queue, receiveAll } = await make();
      const sent = message(uniqueId('one'), {
        recipient: 'ünï@example.com',
        detail: { diagnosticCode: 'smtp; 452 4.2.2 mailbox full « plein »', status: '4.2.2', echo: false },
      });
      await queue.send([sent]);
      expect(await receiveAll()).toEqual([sent]);
    });

    it('an address and detail holding U+FFFE and U+FFFF (SQS refuses both raw in a body) arrive intact', async () => {
      const { queue, receiveAll } = await make();
      const sent = message(uniqueId('odd'), {
        recipient: 'reader\uffff@example.com',
        detail: { diagnosticCode: 'smtp; 550 \ufffe unknown' },
      });
      await queue.send([sent]);
      expect(await receiveAll()).toEqual([sent]);
    });

    it('more messages than one SQS batch holds all arrive, each once', async () => {
      const { queue, receiveAll } = await make();
      const sent = Array.from({ length: 23 }, (_, i) => message(`${uniqueId('many')}-${String(i).padStart(2, '0')}`));
      await queue.send(sent);
      expect((await receiveAll()).sort(byPk)).toEqual([...sent].sort(byPk));
    });

    it('sending nothing sends nothing', async () => {
      const { queue, receiveAll } = await make();
      await queue.send([]);
      expect(await receiveAll()).toEqual([]);
    });

    it('a failed send throws TransientError; the retry is received', async () => {
      const { queue, receiveAll, failNextSend } = await make();
      const sent = message(uniqueId('retry'));
      failNextSend();
      await expect(queue.send([sent])).rejects.toBeInstanceOf(TransientError);
      await queue.send([sent]);
      expect(await receiveAll()).toEqual([sent]);
    });
  });
}
