/**
 * The sweeper's read of the `sync-due` index when DynamoDB cannot answer from it: an index still being
 * built (sync turned on for a table with records) or absent is a retry on the next sweep, never a
 * Scan (the sweeper's role may not Scan the table for it); only the local runtime, whose dynalite
 * cannot add an index to an existing table, reads the table instead. aws-sdk-client-mock: no emulator
 * builds an index in the background.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { DynamoSuppressionSync } from '../../../lambdas/adapters/dynamodb-suppression-sync.js';
import { IndexNotReadyError } from '../../../lambdas/adapters/dynamodb-sync-index-errors.js';
import { TransientError } from '../../../lambdas/core/errors.js';
import { allPendingKeys } from '../../../lambdas/core/sync/shard.js';

/** The text DynamoDB answers while it builds a new global secondary index. */
const BACKFILLING = 'Cannot read from backfilling global secondary index: sync-due';
const MISSING = 'The table does not have the specified index: sync-due';

const validation = (message: string) => Object.assign(new Error(message), { name: 'ValidationException' });

describe('DynamoSuppressionSync.pending when the index cannot answer', () => {
  const ddb = mockClient(DynamoDBDocumentClient);
  afterEach(() => ddb.reset());
  const doc = () => DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));

  it('a backfilling index: IndexNotReadyError, no Scan, and the next sweep queries again', async () => {
    ddb.on(QueryCommand).rejectsOnce(validation(BACKFILLING)).resolves({ Items: [] });
    const sync = new DynamoSuppressionSync(doc(), 'suppressions');
    const first = sync.pending(1, () => undefined);
    await expect(first).rejects.toThrow(IndexNotReadyError);
    await expect(first).rejects.toThrow(BACKFILLING);
    await expect(first).rejects.toBeInstanceOf(TransientError);
    expect(ddb.commandCalls(ScanCommand)).toHaveLength(0);
    // Built now: the next sweep reads every shard from the index.
    expect(await sync.pending(1, () => undefined)).toEqual({ complete: true });
    expect(ddb.commandCalls(ScanCommand)).toHaveLength(0);
    expect(ddb.commandCalls(QueryCommand).map((c) => c.args[0].input.ExpressionAttributeValues![':pending'])).toEqual(
      expect.arrayContaining(allPendingKeys()),
    );
  });

  it('a backfilling index is not scanned even where a missing one would be (local)', async () => {
    ddb.on(QueryCommand).rejects(validation(BACKFILLING));
    const sync = new DynamoSuppressionSync(doc(), 'suppressions', Date.now, { scanWhenIndexMissing: true });
    await expect(sync.pending(1, () => undefined)).rejects.toThrow(IndexNotReadyError);
    expect(ddb.commandCalls(ScanCommand)).toHaveLength(0);
  });

  it('a missing index on AWS: the same retry, no Scan', async () => {
    ddb.on(QueryCommand).rejects(validation(MISSING));
    const sync = new DynamoSuppressionSync(doc(), 'suppressions');
    await expect(sync.pending(1, () => undefined)).rejects.toThrow(IndexNotReadyError);
    expect(ddb.commandCalls(ScanCommand)).toHaveLength(0);
  });

  it('a missing index locally: the table is read instead, for the old and the sharded markers', async () => {
    ddb.on(QueryCommand).rejects(validation(MISSING));
    ddb.on(ScanCommand).resolves({ Items: [{ email: 'a@x', syncPending: 'pending', syncDue: 5, syncChange: 2 }] });
    const sync = new DynamoSuppressionSync(doc(), 'suppressions', Date.now, { scanWhenIndexMissing: true });
    const seen: string[] = [];
    await sync.pending(10, (items) => {
      seen.push(...items.map((i) => i.email));
      return undefined;
    });
    expect(seen).toEqual(['a@x']);
    expect(ddb.commandCalls(ScanCommand)[0]!.args[0].input.FilterExpression).toBe(
      'begins_with(#pending, :pending) AND #due <= :due',
    );
  });

  it('any other failure is a plain transient error, not an index problem', async () => {
    ddb
      .on(QueryCommand)
      .rejects(Object.assign(new Error('Throughput exceeded'), { name: 'ProvisionedThroughputExceededException' }));
    const sync = new DynamoSuppressionSync(doc(), 'suppressions');
    const read = sync.pending(1, () => undefined);
    await expect(read).rejects.toThrow('sync index query failed');
    await expect(read).rejects.not.toBeInstanceOf(IndexNotReadyError);
  });

  it('stops taking pages once its deadline has passed', async () => {
    let clock = 0;
    ddb.on(QueryCommand).callsFake(async () => {
      clock += 10;
      return {
        Items: [{ email: `e${clock}@x`, syncPending: 'pending#0', syncDue: 1 }],
        LastEvaluatedKey: { email: 'x' },
      };
    });
    const sync = new DynamoSuppressionSync(doc(), 'suppressions', () => clock);
    const result = await sync.pending(1, () => undefined, { deadline: 35 });
    expect(result).toEqual({ complete: false });
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(4);
  });
});
