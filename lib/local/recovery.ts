/**
 * fauxqs keeps its queues in memory, so stopping `npm start` drops whatever was in flight. SQS in AWS is
 * durable and needs none of this. Rows carry no "applied" mark (enqueue before store makes it
 * unnecessary in AWS), so locally, on start, we re-send the events of every stored row that has not
 * expired. Re-sending is always safe: the consumer is idempotent. (A Scan is fine on a local table.)
 */
import { ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { decodeInboxRow } from '../../lambdas/adapters/dynamodb-inbox.js';
import type { EventQueue, QueuedEvent } from '../../lambdas/core/pipeline/ports.js';

export async function resendStored(
  client: DynamoDBDocumentClient,
  inboxTable: string,
  queue: EventQueue,
  nowMs: number = Date.now(),
): Promise<number> {
  let sent = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({
        TableName: inboxTable,
        FilterExpression: '(attribute_exists(#body) OR attribute_exists(#event)) AND #ttl >= :now',
        ExpressionAttributeNames: { '#body': 'body', '#event': 'event', '#ttl': 'expiresAt' },
        ExpressionAttributeValues: { ':now': Math.floor(nowMs / 1000) },
        ExclusiveStartKey: startKey,
      }),
    );
    const messages: QueuedEvent[] = [];
    for (const item of page.Items ?? []) {
      const row = decodeInboxRow(item);
      for (const event of row?.events ?? []) messages.push({ pk: row!.pk, event });
    }
    if (messages.length > 0) await queue.send(messages);
    sent += messages.length;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return sent;
}
