/**
 * fauxqs keeps its queues in memory, so stopping `npm start` drops whatever was in flight. SQS in AWS is
 * durable and needs none of this; locally, on start, we re-send every inbox row not yet applied.
 * Re-sending is always safe: the consumer is idempotent. (A Scan is fine on a local table.)
 */
import { ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { EventQueue, QueuedEvent } from '../../lambdas/core/pipeline/ports.js';

export async function resendUnapplied(client: DynamoDBDocumentClient, inboxTable: string, queue: EventQueue): Promise<number> {
  let sent = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({
        TableName: inboxTable,
        FilterExpression: 'attribute_exists(#event) AND #status <> :applied',
        ExpressionAttributeNames: { '#event': 'event', '#status': 'status' },
        ExpressionAttributeValues: { ':applied': 'applied' },
        ExclusiveStartKey: startKey,
      }),
    );
    const messages = (page.Items ?? []).map((row) => ({ pk: row.pk, event: row.event }) as QueuedEvent);
    if (messages.length > 0) await queue.send(messages);
    sent += messages.length;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return sent;
}
