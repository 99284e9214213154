/**
 * fauxqs keeps its queues in memory, so stopping `npm start` drops whatever was in flight. SQS in AWS is
 * durable and needs none of this; locally, on start, we re-send every inbox row not yet applied.
 * Re-sending is always safe: the consumer is idempotent. (The inbox's listing is a Scan: fine locally.)
 */
import type { DynamoInbox } from '../../lambdas/adapters/dynamodb-inbox.js';
import type { EventQueue, QueuedEvent } from '../../lambdas/core/pipeline/ports.js';

/** Messages per send call: bounded memory however large the backlog. */
const CHUNK = 100;

export async function resendUnapplied(inbox: Pick<DynamoInbox, 'list'>, queue: EventQueue): Promise<number> {
  let sent = 0;
  let chunk: QueuedEvent[] = [];
  const flush = async () => {
    if (chunk.length > 0) await queue.send(chunk);
    sent += chunk.length;
    chunk = [];
  };
  for await (const row of inbox.list({ status: 'pending' })) {
    chunk.push({ pk: row.pk, event: row.event });
    if (chunk.length >= CHUNK) await flush();
  }
  await flush();
  return sent;
}
