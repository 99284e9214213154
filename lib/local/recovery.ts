/**
 * fauxqs keeps its queues in memory, so stopping `npm start` drops whatever was in flight. SQS in AWS is
 * durable and needs none of this. Rows carry no "applied" mark (enqueue before store makes it
 * unnecessary in AWS), so locally, on start, we re-send the events of every stored row that has not
 * expired. Re-sending is always safe: the consumer is idempotent. The inbox adapter owns the table.
 */
import type { DynamoInbox } from '../../lambdas/adapters/dynamodb-inbox.js';
import type { EventQueue, QueuedEvent } from '../../lambdas/core/pipeline/ports.js';

export async function resendStored(
  inbox: Pick<DynamoInbox, 'listStored'>,
  queue: EventQueue,
  nowMs: number = Date.now(),
): Promise<number> {
  let sent = 0;
  for await (const rows of inbox.listStored(nowMs)) {
    const messages: QueuedEvent[] = rows.flatMap((row) => row.events.map((event) => ({ pk: row.pk, event })));
    if (messages.length > 0) await queue.send(messages);
    sent += messages.length;
  }
  return sent;
}
