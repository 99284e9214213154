/**
 * The reputation table's adapter on dynalite: counter increments spread over shards and summed back per
 * window and per hour, the registry listing every sender once per provider, and the stored state
 * changed only by the caller that saw the previous one.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../lambdas/adapters/aws-clients.js';
import { DynamoReputationReader } from '../../lambdas/adapters/dynamodb-reputation.js';
import { DynamoReputationCounter, DynamoReputationStates } from '../../lambdas/adapters/dynamodb-reputation-writer.js';
import { REPUTATION_TABLE } from '../../lambdas/adapters/tables.js';
import { DEFAULT_THRESHOLDS, HOUR_MS, rates, type SenderTally } from '../../lambdas/core/reputation/index.js';
import { ensureReputationTable } from '../../lib/local/bootstrap.js';
import { type Emulator, startDynamo } from '../../lib/local/emulators.js';

const TABLE = 'rep-test-reputation';
const NOW = Date.UTC(2026, 11, 3, 12, 30);
const HOUR = Date.UTC(2026, 11, 3, 12);

const tallyOf = (sender: string, hourMs: number, c: Partial<SenderTally>, provider = 'ses'): SenderTally => ({
  provider,
  sender,
  hourMs,
  delivered: 0,
  hardBounced: 0,
  softBounced: 0,
  complained: 0,
  ...c,
});

describe('reputation table adapter on dynalite', () => {
  let dynamo: Emulator;
  let doc: ReturnType<typeof createDocumentClient>;
  let reader: DynamoReputationReader;

  beforeAll(async () => {
    dynamo = await startDynamo();
    const raw = new DynamoDBClient({
      region: 'us-east-1',
      endpoint: dynamo.endpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    await ensureReputationTable(raw, TABLE);
    raw.destroy();
    doc = createDocumentClient({ region: 'us-east-1', dynamoEndpoint: dynamo.endpoint });
    reader = new DynamoReputationReader(doc, TABLE, DEFAULT_THRESHOLDS);
  });
  afterAll(async () => {
    doc?.destroy();
    await dynamo?.stop();
  });

  it('sums increments over every shard, per window and per hour, and lists each sender once per provider', async () => {
    let i = 0;
    // Deterministic shards 0..7 in turn, so every shard is written.
    const counter = new DynamoReputationCounter(doc, TABLE, () => (i++ % 8) / 8);
    for (let n = 0; n < 16; n++) await counter.add([tallyOf('a.example', HOUR, { delivered: 10, hardBounced: 1 })]);
    await counter.add([tallyOf('a.example', HOUR - 30 * HOUR_MS, { delivered: 500, complained: 2 })]);
    await counter.add([
      tallyOf('a.example', HOUR, { delivered: 7 }, 'sendgrid'),
      tallyOf('b.example', HOUR, { softBounced: 3 }),
    ]);

    const scan = await doc.send(new ScanCommand({ TableName: TABLE }));
    const shards = new Set(
      (scan.Items ?? [])
        .map((item) => String(item[REPUTATION_TABLE.partitionKey]))
        .filter((pk) => pk.startsWith('c#ses#a.example#')),
    );
    expect(shards.size).toBe(REPUTATION_TABLE.counterShards);
    for (const item of scan.Items ?? []) expect(typeof item[REPUTATION_TABLE.ttlAttribute]).toBe('number');

    const day = await reader.listSenders('24h', { nowMs: NOW });
    expect(day.map((s) => `${s.sender}/${s.provider}`)).toEqual([
      'a.example/sendgrid',
      'a.example/ses',
      'b.example/ses',
    ]);
    const ses = day.find((s) => s.sender === 'a.example' && s.provider === 'ses')!;
    expect(ses).toMatchObject({ delivered: 160, hardBounced: 16, attempts: 176, window: '24h', state: 'ok' });
    const week = await reader.listSenders('7d', { nowMs: NOW, sender: 'a.example' });
    expect(week.find((s) => s.provider === 'ses')).toMatchObject({ delivered: 660, complained: 2, attempts: 678 });

    const series = await reader.hourlySeries('a.example', 48, { provider: 'ses', nowMs: NOW });
    expect(series).toHaveLength(48);
    expect(series.at(-1)).toMatchObject({ hourMs: HOUR, delivered: 160, hardBounced: 16 });
    expect(series.find((h) => h.hourMs === HOUR - 30 * HOUR_MS)).toMatchObject({ delivered: 500, complained: 2 });
    expect(series.filter((h) => h.delivered > 0)).toHaveLength(2);
  });

  it('changes a stored state only for the caller that saw the previous one', async () => {
    const states = new DynamoReputationStates(doc, TABLE);
    const key = { provider: 'ses', sender: 'c.example' };
    const r = rates({ delivered: 950, hardBounced: 50, softBounced: 0, complained: 0 });
    expect(await states.save(key, undefined, 'breach', r, NOW)).toBe(true);
    // A second evaluator that read no state yet loses: the change is announced once.
    expect(await states.save(key, undefined, 'breach', r, NOW)).toBe(false);
    expect(await states.save(key, 'ok', 'warn', r, NOW)).toBe(false);
    expect(await reader.storedStatus('c.example')).toEqual([
      expect.objectContaining({ state: 'breach', attempts: 1000, bounceRate: 0.05, window: '24h', changedAt: NOW }),
    ]);
    expect(await states.save(key, 'breach', 'breach', r, NOW + 1)).toBe(false);
    expect((await reader.storedStatus('c.example'))[0]).toMatchObject({ evaluatedAt: NOW + 1, changedAt: NOW });
  });
});
