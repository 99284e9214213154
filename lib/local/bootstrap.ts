/**
 * Creates the tables and queues the local runtime needs, from the same definitions the CDK stack uses.
 * Idempotent: re-running `npm start` on an existing `.data/` finds everything in place.
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { INBOX_TABLE, QUEUE, REPUTATION_TABLE, SES_FEED, SUPPRESSION_TABLE } from '../definitions.js';

export async function ensureTables(
  client: DynamoDBClient,
  names: { inbox: string; suppression: string },
): Promise<void> {
  await ensureTable(client, {
    TableName: names.inbox,
    BillingMode: 'PAY_PER_REQUEST',
    KeySchema: [{ AttributeName: INBOX_TABLE.partitionKey, KeyType: 'HASH' }],
    AttributeDefinitions: [{ AttributeName: INBOX_TABLE.partitionKey, AttributeType: 'S' }],
  });
  await enableTtl(client, names.inbox, INBOX_TABLE.ttlAttribute);
  await ensureTable(client, {
    TableName: names.suppression,
    BillingMode: 'PAY_PER_REQUEST',
    KeySchema: [{ AttributeName: SUPPRESSION_TABLE.partitionKey, KeyType: 'HASH' }],
    AttributeDefinitions: [{ AttributeName: SUPPRESSION_TABLE.partitionKey, AttributeType: 'S' }],
  });
}

/** The reputation counters and sender registry (lambdas/adapters/dynamodb-reputation.ts owns the layout). */
export async function ensureReputationTable(client: DynamoDBClient, name: string): Promise<void> {
  const { partitionKey: pk, sortKey: sk } = REPUTATION_TABLE;
  await ensureTable(client, {
    TableName: name,
    BillingMode: 'PAY_PER_REQUEST',
    KeySchema: [
      { AttributeName: pk, KeyType: 'HASH' },
      { AttributeName: sk, KeyType: 'RANGE' },
    ],
    AttributeDefinitions: [
      { AttributeName: pk, AttributeType: 'S' },
      { AttributeName: sk, AttributeType: 'S' },
    ],
  });
  await enableTtl(client, name, REPUTATION_TABLE.ttlAttribute);
}

async function ensureTable(
  client: DynamoDBClient,
  input: ConstructorParameters<typeof CreateTableCommand>[0],
): Promise<void> {
  try {
    await client.send(new CreateTableCommand(input));
  } catch (error) {
    if (!(error instanceof Error && error.name === 'ResourceInUseException')) throw error;
  }
  for (let i = 0; i < 100; i++) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: input.TableName }));
    if (Table?.TableStatus === 'ACTIVE') return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`table ${input.TableName} did not become ACTIVE`);
}

/** dynalite has no TTL API (and never deletes); LocalStack and AWS do. Our conditions never rely on deletion. */
async function enableTtl(client: DynamoDBClient, table: string, attribute: string): Promise<void> {
  try {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: table,
        TimeToLiveSpecification: { AttributeName: attribute, Enabled: true },
      }),
    );
  } catch (error) {
    const name = error instanceof Error ? error.name : '';
    if (name !== 'UnknownOperationException' && !(error instanceof Error && /already enabled/i.test(error.message)))
      throw error;
  }
}

/**
 * The local queue's redrive, shorter than AWS's on purpose: on one machine a poison message should
 * reach the DLQ while the operator is still looking (three failed receives, each back within seconds),
 * not after AWS's visibility timeout (sized for Lambda's 6x rule) times five. A message whose batch
 * never settles (a crash mid-batch) is back after the visibility timeout: at most a minute in all.
 */
export const LOCAL_QUEUE = {
  visibilityTimeoutSeconds: 20,
  maxReceiveCount: 3,
  /** A failed record is visible again after this (the poller sets it), instead of the visibility timeout. */
  retryDelaySeconds: 5,
} as const;

export interface Queues {
  queueUrl: string;
  deadLetterUrl: string;
  deadLetterArn: string;
  /** The SES feed (what the SES topic's SQS subscription delivers to) and the SES dead-letter queue. */
  sesQueueUrl: string;
  sesDeadLetterUrl: string;
  sesDeadLetterArn: string;
}

export interface QueueNames {
  /** The events queue; its DLQ is this name plus `-dlq`. */
  events: string;
  sesFeed: string;
  sesDeadLetters: string;
}

const DAY_SECONDS = 86_400;

/** The events queue and its DLQ, the SES feed and the SES dead-letter queue, each with the stack's sizing and redrive. */
export async function ensureQueues(client: SQSClient, names: QueueNames): Promise<Queues> {
  const events = await ensureRedrivenQueue(client, {
    name: names.events,
    deadLetterName: `${names.events}${QUEUE.deadLetterSuffix}`,
    visibilityTimeoutSeconds: LOCAL_QUEUE.visibilityTimeoutSeconds,
    retentionDays: QUEUE.retentionDays,
    deadLetterRetentionDays: QUEUE.deadLetterRetentionDays,
    maxReceiveCount: LOCAL_QUEUE.maxReceiveCount,
  });
  // Also where `ratchet ses redrive` reads, whichever way a message got there.
  const ses = await ensureRedrivenQueue(client, {
    name: names.sesFeed,
    deadLetterName: names.sesDeadLetters,
    visibilityTimeoutSeconds: SES_FEED.visibilityTimeoutSeconds,
    retentionDays: SES_FEED.retentionDays,
    deadLetterRetentionDays: SES_FEED.deadLetterRetentionDays,
    maxReceiveCount: SES_FEED.maxReceiveCount,
  });
  return {
    queueUrl: events.url,
    deadLetterUrl: events.deadLetterUrl,
    deadLetterArn: events.deadLetterArn,
    sesQueueUrl: ses.url,
    sesDeadLetterUrl: ses.deadLetterUrl,
    sesDeadLetterArn: ses.deadLetterArn,
  };
}

interface RedrivenQueue {
  name: string;
  deadLetterName: string;
  visibilityTimeoutSeconds: number;
  retentionDays: number;
  deadLetterRetentionDays: number;
  maxReceiveCount: number;
}

async function ensureRedrivenQueue(
  client: SQSClient,
  queue: RedrivenQueue,
): Promise<{ url: string; deadLetterUrl: string; deadLetterArn: string }> {
  const dlq = await client.send(
    new CreateQueueCommand({
      QueueName: queue.deadLetterName,
      Attributes: { MessageRetentionPeriod: String(queue.deadLetterRetentionDays * DAY_SECONDS) },
    }),
  );
  const deadLetterUrl = dlq.QueueUrl!;
  const attrs = await client.send(
    new GetQueueAttributesCommand({ QueueUrl: deadLetterUrl, AttributeNames: ['QueueArn'] }),
  );
  const deadLetterArn = attrs.Attributes!.QueueArn!;
  const main = await client.send(
    new CreateQueueCommand({
      QueueName: queue.name,
      Attributes: {
        VisibilityTimeout: String(queue.visibilityTimeoutSeconds),
        MessageRetentionPeriod: String(queue.retentionDays * DAY_SECONDS),
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: deadLetterArn, maxReceiveCount: queue.maxReceiveCount }),
      },
    }),
  );
  return { url: main.QueueUrl!, deadLetterUrl, deadLetterArn };
}
