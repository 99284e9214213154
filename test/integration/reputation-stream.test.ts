/**
 * Counting from the inbox's stream, exactly once, on dynalite: real inbox rows (DynamoInbox's own
 * packing) as stream records the way Lambda hands them over, through the counter's handler and its
 * cells. A batch delivered again, a batch Lambda bisects after a failure, a batch overlapping what was
 * counted, and a batch that failed halfway through its cells all count every record once. Another
 * shard's cell is its own. The table's other items and deletions count nothing.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoInbox } from '../../lambdas/adapters/dynamodb-inbox.js';
import type { DynamoReputationReader } from '../../lambdas/adapters/dynamodb-reputation.js';
import { DynamoReputationCells } from '../../lambdas/adapters/dynamodb-reputation-cells.js';
import { admittedRecordOf, type InboxStreamRecord, streamImageOf } from '../../lambdas/adapters/inbox-stream.js';
import type { NormalizedEvent } from '../../lambdas/core/event.js';
import { createReputationCounterHandler } from '../../lambdas/handlers/reputation-counter-handler.js';
import { insertRecord } from '../../lib/local/inbox-stream.js';
import { type ReputationTableOnDynalite, reputationTableOnDynalite } from '../support/reputation-seed.js';

const TABLE = 'stream-test-reputation';
const NOW = Date.UTC(2026, 11, 3, 12, 30);
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

let table: ReputationTableOnDynalite;
let doc: DynamoDBDocumentClient;
let reader: DynamoReputationReader;

beforeAll(async () => {
  table = await reputationTableOnDynalite(TABLE);
  ({ doc, reader } = table);
});
afterAll(() => table?.stop());

const inbox = () => new DynamoInbox({} as DynamoDBDocumentClient, 'unused', { ttlSeconds: 3600 });

let n = 0;
/** One generic outcome of `sender`, as the edge would store it. */
function event(sender: string, kind: NormalizedEvent['kind']): NormalizedEvent {
  n++;
  return {
    provider: 'generic',
    eventId: `evt_${n}`,
    recipient: `r${n}@example.org`,
    kind,
    occurredAt: NOW,
    detail: {},
    sender,
    raw: JSON.stringify({ id: `evt_${n}`, type: kind, sender }),
  };
}

/** `count` stream records of new rows for `sender`, sequence numbers from `first` on. */
function records(sender: string, first: number, count: number, kind: NormalizedEvent['kind'] = 'delivered') {
  return Array.from({ length: count }, (_, i) =>
    insertRecord(
      streamImageOf(inbox().prepare([event(sender, kind)], NOW)),
      String(10n ** 20n + BigInt(first + i)),
      NOW,
    ),
  );
}

const counter = (client: DynamoDBDocumentClient = doc) =>
  createReputationCounterHandler<InboxStreamRecord>({
    decode: admittedRecordOf,
    cells: new DynamoReputationCells(client, TABLE),
    log: silent,
  });

const delivered = async (sender: string) =>
  (await reader.listSenders('24h', { sender, nowMs: NOW })).find((s) => s.provider === 'generic')?.delivered ?? 0;

describe('counting from the inbox stream', () => {
  it('a batch delivered again counts nothing more', async () => {
    const batch = records('again.example', 0, 50);
    await counter()({ Records: batch, shardId: 'shardId-a' });
    await counter()({ Records: batch, shardId: 'shardId-a' });
    expect(await delivered('again.example')).toBe(50);
  });

  it('a bisected batch (both halves after the whole was counted, then each alone) counts each record once', async () => {
    const batch = records('bisect.example', 0, 40);
    await counter()({ Records: batch, shardId: 'shardId-b' });
    await counter()({ Records: batch.slice(0, 20), shardId: 'shardId-b' });
    await counter()({ Records: batch.slice(20), shardId: 'shardId-b' });
    expect(await delivered('bisect.example')).toBe(40);
    // Bisected before anything was counted: the first half, then the second, each counted once.
    const fresh = records('bisect.example', 100, 40);
    await counter()({ Records: fresh.slice(0, 20), shardId: 'shardId-b' });
    await counter()({ Records: fresh.slice(20), shardId: 'shardId-b' });
    await counter()({ Records: fresh.slice(20), shardId: 'shardId-b' });
    expect(await delivered('bisect.example')).toBe(80);
  });

  it('an overlapping batch counts only what is above the cell high-water mark', async () => {
    const all = records('overlap.example', 0, 30);
    await counter()({ Records: all.slice(0, 20), shardId: 'shardId-c' });
    await counter()({ Records: all.slice(10, 30), shardId: 'shardId-c' });
    expect(await delivered('overlap.example')).toBe(30);
  });

  it('a batch that failed after some of its cells were written counts the rest on its retry, nothing twice', async () => {
    const batch = [...records('half-a.example', 0, 10), ...records('half-b.example', 10, 10, 'hard_bounce')];
    let updates = 0;
    // The second cell write fails (DynamoDB unreachable), after the first succeeded: a fault dynalite cannot make.
    const faulty = {
      send: (command: { constructor: { name: string } }) => {
        if (command.constructor.name === 'UpdateCommand' && ++updates === 2)
          return Promise.reject(new Error('connection reset'));
        return doc.send(command as never);
      },
    } as unknown as DynamoDBDocumentClient;
    await expect(counter(faulty)({ Records: batch, shardId: 'shardId-d' })).rejects.toThrow(/counter write failed/);
    await counter()({ Records: batch, shardId: 'shardId-d' });
    await counter()({ Records: batch, shardId: 'shardId-d' });
    const a = await reader.listSenders('24h', { sender: 'half-a.example', nowMs: NOW });
    const b = await reader.listSenders('24h', { sender: 'half-b.example', nowMs: NOW });
    expect([a[0]?.delivered, b[0]?.hardBounced]).toEqual([10, 10]);
  });

  it("two shards' cells are their own: a record below one shard's mark still counts on another", async () => {
    await counter()({ Records: records('shards.example', 500, 5), shardId: 'shardId-e1' });
    await counter()({ Records: records('shards.example', 1, 5), shardId: 'shardId-e2' });
    expect(await delivered('shards.example')).toBe(10);
  });

  it('deletions, modifications of other items and rows without a body count nothing; a batch needs its shard', async () => {
    const [row] = records('other.example', 0, 1);
    const removed = { ...row, eventName: 'REMOVE' };
    const claim = { eventName: 'INSERT', dynamodb: { ...row!.dynamodb, NewImage: { pk: { S: 'mailgun-token#x' } } } };
    expect([removed, claim].map(admittedRecordOf)).toEqual([undefined, undefined]);
    await counter()({ Records: [removed, claim], shardId: 'shardId-f' });
    expect(await delivered('other.example')).toBe(0);
    await expect(counter()({ Records: [row!] })).rejects.toThrow(/shardId/);
  });
});
