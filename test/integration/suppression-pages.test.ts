/**
 * readSuppressionPage on dynalite: pages of a filtered view hold every match exactly once, in the Scan's
 * order, whether a page fills mid-response or at its end; the deadline ends a page early with a cursor
 * that goes on from there; a forged cursor is refused before DynamoDB sees it.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../lambdas/adapters/aws-clients.js';
import { BadCursorError, readSuppressionPage } from '../../lambdas/adapters/dynamodb-suppression-pages.js';
import { applyEvent, type SuppressionRecord } from '../../lambdas/core/suppression/index.js';
import { type Emulator, startDynamo } from '../../lib/local/emulators.js';
import { createTables } from './harness.js';

const TABLE = 'pages-suppressions';
const ITEMS = 137;
const complaint = (r: SuppressionRecord) => r.reasons.includes('complaint');

async function allPages(doc: ReturnType<typeof createDocumentClient>, pageSize: number, matches?: typeof complaint) {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const page = await readSuppressionPage(doc, TABLE, { pageSize, cursor, matches, deadlineMs: Date.now() + 60_000 });
    expect(page.records.length).toBeLessThanOrEqual(pageSize);
    pages.push(page.records.map((r) => r.email));
    cursor = page.next;
  } while (cursor);
  return pages;
}

describe('readSuppressionPage on dynalite', () => {
  let dynamo: Emulator;
  let doc: ReturnType<typeof createDocumentClient>;

  beforeAll(async () => {
    dynamo = await startDynamo();
    await createTables(dynamo.endpoint, { inbox: 'pages-inbox', suppression: TABLE });
    doc = createDocumentClient({ region: 'us-east-1', dynamoEndpoint: dynamo.endpoint });
    for (let i = 0; i < ITEMS; i++) {
      const record = applyEvent(undefined, {
        provider: 'ses',
        eventId: `e${i}`,
        recipient: `u${i}@example.com`,
        kind: i % 3 === 0 ? 'complaint' : 'hard_bounce',
        occurredAt: 1_700_000_000_000 + i,
        detail: {},
        raw: '',
      }).record;
      await doc.send(new PutCommand({ TableName: TABLE, Item: { ...record, version: 1 } }));
    }
  });
  afterAll(async () => {
    doc?.destroy();
    await dynamo?.stop();
  });

  it('pages the whole table, every record once, full pages until the last', async () => {
    const pages = await allPages(doc, 10);
    const seen = pages.flat();
    expect(new Set(seen).size).toBe(ITEMS);
    expect(seen).toHaveLength(ITEMS);
    expect(pages.slice(0, -1).every((p) => p.length === 10)).toBe(true);
  });

  it('pages a filtered view: every match once, none skipped where a page filled mid-response', async () => {
    const pages = await allPages(doc, 7, complaint);
    const seen = pages.flat();
    const expected = Array.from({ length: ITEMS }, (_, i) => i).filter((i) => i % 3 === 0);
    expect(seen.map((e) => Number(/u(\d+)@/.exec(e)![1])).sort((a, b) => a - b)).toEqual(expected);
    expect(seen).toHaveLength(expected.length);
  });

  it('stops at the deadline with what it found and a cursor that goes on from there', async () => {
    let calls = 0;
    // 10 a page reads 20 items first: about 7 matches, then the deadline has passed.
    const page = await readSuppressionPage(doc, TABLE, {
      pageSize: 10,
      matches: complaint,
      deadlineMs: 1,
      now: () => ++calls,
    });
    expect(page.stoppedEarly).toBe(true);
    expect(page.next).toBeDefined();
    expect(page.scanned).toBe(20);
    expect(page.records.length).toBeLessThan(10);
    const rest = await readSuppressionPage(doc, TABLE, {
      pageSize: 1000,
      cursor: page.next,
      matches: complaint,
      deadlineMs: Date.now() + 60_000,
    });
    expect(rest.next).toBeUndefined();
    expect(page.records.length + rest.records.length).toBe(Math.ceil(ITEMS / 3));
  });

  it('refuses a cursor it did not write', async () => {
    for (const cursor of [
      '%%%',
      Buffer.from('{"pk":"x"}').toString('base64url'),
      Buffer.from('{"email":""}').toString('base64url'),
      Buffer.from('{"email":"a","b":1}').toString('base64url'),
    ]) {
      await expect(
        readSuppressionPage(doc, TABLE, { pageSize: 5, cursor, deadlineMs: Date.now() + 1000 }),
      ).rejects.toBeInstanceOf(BadCursorError);
    }
  });
});
