/**
 * Counts tallies into the reputation table the way the stream consumer does (DynamoReputationCells),
 * for tests and the console's seed: each call is one batch of `shard`, with sequence numbers that only
 * grow, so every call counts.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../lambdas/adapters/aws-clients.js';
import { DynamoReputationReader } from '../../lambdas/adapters/dynamodb-reputation.js';
import { DynamoReputationCells } from '../../lambdas/adapters/dynamodb-reputation-cells.js';
import type { SenderTally } from '../../lambdas/core/reputation/counts.js';
import { DEFAULT_THRESHOLDS } from '../../lambdas/core/reputation/index.js';
import { type CellBatch, padSequence } from '../../lambdas/core/reputation/stream-count.js';
import { ensureReputationTable } from '../../lib/local/bootstrap.js';
import { startDynamo } from '../../lib/local/emulators.js';

let sequence = 10n ** 20n;

export async function seedTallies(
  doc: DynamoDBDocumentClient,
  tableName: string,
  tallies: readonly SenderTally[],
  shard = 'shardId-seed',
): Promise<void> {
  const cells: CellBatch[] = tallies.map(({ provider, sender, hourMs, ...counts }) => ({
    provider,
    sender,
    hourMs,
    entries: [{ sequence: padSequence(String(++sequence)), counts }],
  }));
  await new DynamoReputationCells(doc, tableName).count(shard, cells);
}

/** A reputation table on a fresh dynalite, with a document client and the reader over it. */
export interface ReputationTableOnDynalite {
  doc: DynamoDBDocumentClient;
  reader: DynamoReputationReader;
  stop(): Promise<void>;
}

export async function reputationTableOnDynalite(tableName: string): Promise<ReputationTableOnDynalite> {
  const dynamo = await startDynamo();
  const raw = new DynamoDBClient({
    region: 'us-east-1',
    endpoint: dynamo.endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await ensureReputationTable(raw, tableName);
  raw.destroy();
  const doc = createDocumentClient({ region: 'us-east-1', dynamoEndpoint: dynamo.endpoint });
  return {
    doc,
    reader: new DynamoReputationReader(doc, tableName, DEFAULT_THRESHOLDS),
    async stop() {
      doc.destroy();
      await dynamo.stop();
    },
  };
}
