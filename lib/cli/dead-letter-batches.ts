/**
 * The batches of a dead-letter queue for the CLI's readers (`sync status`, `dlq list|redrive`,
 * `ses redrive`), each message once, and where the reading ends, the same for all of them:
 * - every receive is a long poll (SqsDeadLetters' default): a short one is answered from a sample of
 *   SQS's servers and can come back empty while messages wait, so the first empty answer of a long poll
 *   is the end;
 * - a batch holding only messages the caller still holds (listed, kept, counted: hidden, not deleted)
 *   is the end too: a run longer than the hiding time is handed the first ones again, and going on
 *   would handle them twice and never end.
 */
import type { DeadLetter, SqsDeadLetters } from '../../lambdas/adapters/sqs-dead-letters.js';

export async function* deadLetterBatches(
  queue: Pick<SqsDeadLetters, 'receive'>,
  hideSeconds: number,
  held: { has(id: string): boolean },
): AsyncGenerator<DeadLetter[]> {
  for (;;) {
    const fresh = (await queue.receive(hideSeconds)).filter((m) => !held.has(m.id));
    if (fresh.length === 0) return;
    yield fresh;
  }
}
