/**
 * Counts tallies into the reputation table the way the stream consumer does (DynamoReputationCells),
 * for tests and the console's seed: each call is one batch of `shard`, with sequence numbers that only
 * grow, so every call counts.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoReputationCells } from '../../lambdas/adapters/dynamodb-reputation-cells.js';
import type { SenderTally } from '../../lambdas/core/reputation/counts.js';
import { type CellBatch, padSequence } from '../../lambdas/core/reputation/stream-count.js';

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
