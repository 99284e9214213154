/**
 * The reputation table's adapter on dynalite: counts from several stream shards (a cell each) summed
 * back per window and per hour, the registry listing every sender once per provider, and the stored state
 * changed only by the caller that saw the previous one.
 */
import { type DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DynamoReputationReader } from '../../lambdas/adapters/dynamodb-reputation.js';
import { DynamoReputationStates } from '../../lambdas/adapters/dynamodb-reputation-writer.js';
import { REPUTATION_TABLE } from '../../lambdas/adapters/tables.js';
import { HOUR_MS, rates, type SenderTally } from '../../lambdas/core/reputation/index.js';
import { type ReputationTableOnDynalite, reputationTableOnDynalite, seedTallies } from '../support/reputation-seed.js';

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
  let table: ReputationTableOnDynalite;
  let doc: DynamoDBDocumentClient;
  let reader: DynamoReputationReader;

  beforeAll(async () => {
    table = await reputationTableOnDynalite(TABLE);
    ({ doc, reader } = table);
  });
  afterAll(() => table?.stop());

  it('sums the cells of every stream shard, per window and per hour, and lists each sender once per provider', async () => {
    // Four stream shards in turn, each batch counted into its own shard's cell.
    for (let n = 0; n < 16; n++)
      await seedTallies(
        doc,
        TABLE,
        [tallyOf('a.example', HOUR, { delivered: 10, hardBounced: 1 })],
        `shardId-${n % 4}`,
      );
    await seedTallies(doc, TABLE, [tallyOf('a.example', HOUR - 30 * HOUR_MS, { delivered: 500, complained: 2 })]);
    await seedTallies(doc, TABLE, [
      tallyOf('a.example', HOUR, { delivered: 7 }, 'sendgrid'),
      tallyOf('b.example', HOUR, { softBounced: 3 }),
    ]);

    const scan = await doc.send(new ScanCommand({ TableName: TABLE }));
    const cells = (scan.Items ?? []).filter((item) => item[REPUTATION_TABLE.partitionKey] === 'c#ses#a.example');
    // One partition per provider and sender; a cell per hour and shard under it.
    expect(cells.map((item) => item[REPUTATION_TABLE.sortKey]).sort()).toEqual([
      'h#2026-12-02T06#seed',
      'h#2026-12-03T12#0',
      'h#2026-12-03T12#1',
      'h#2026-12-03T12#2',
      'h#2026-12-03T12#3',
    ]);
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
