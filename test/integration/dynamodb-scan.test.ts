/**
 * scanPages, the one Scan paging loop the inbox and suppression adapters share, on dynalite: every item
 * once across pages, a filtered-empty page does not end the scan, the caller's loop body runs before the
 * next page is read, and a failed page is a TransientError naming the table (the fault is injected:
 * dynalite does not fail on its own).
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../lambdas/adapters/aws-clients.js';
import { scanPages } from '../../lambdas/adapters/dynamodb-scan.js';
import { TransientError } from '../../lambdas/core/errors.js';
import { type Emulator, startDynamo } from '../../lib/local/emulators.js';
import { createTables, injectFault } from './harness.js';

const TABLE = 'scan-suppressions';
const ITEMS = 23;

describe('scanPages on dynalite', () => {
  let dynamo: Emulator;
  let doc: ReturnType<typeof createDocumentClient>;
  /** The ExclusiveStartKey of every Scan sent, in order. */
  let starts: Array<Record<string, unknown> | undefined>;

  beforeAll(async () => {
    dynamo = await startDynamo();
    await createTables(dynamo.endpoint, { inbox: 'scan-inbox', suppression: TABLE });
    doc = createDocumentClient({ region: 'us-east-1', dynamoEndpoint: dynamo.endpoint });
    for (let i = 0; i < ITEMS; i++) {
      await doc.send(new PutCommand({ TableName: TABLE, Item: { email: `u${i}@example.com`, n: i } }));
    }
    doc.middlewareStack.add(
      (next, context) => (args) => {
        if (context.commandName === 'ScanCommand')
          starts.push((args.input as { ExclusiveStartKey?: never }).ExclusiveStartKey);
        return next(args);
      },
      { step: 'initialize', name: 'recordScans' },
    );
  });
  afterAll(async () => {
    doc?.destroy();
    await dynamo?.stop();
  });

  it('reads every item exactly once over as many pages as the limit makes, each from where the last ended', async () => {
    starts = [];
    const pages: number[][] = [];
    for await (const items of scanPages(doc, { TableName: TABLE, Limit: 5 }, 'suppression')) {
      pages.push(items.map((item) => Number(item['n'])));
    }
    const seen = pages.flat().sort((a, b) => a - b);
    expect(seen).toEqual(Array.from({ length: ITEMS }, (_, i) => i));
    expect(pages.every((page) => page.length <= 5)).toBe(true);
    // 23 items at 5 a page: 5 pages, the last one short; dynalite may add one empty page at the end.
    expect(pages.length).toBeGreaterThanOrEqual(5);
    expect(starts[0]).toBeUndefined();
    expect(starts.slice(1).every((key) => key !== undefined)).toBe(true);
    expect(new Set(starts.slice(1).map((key) => JSON.stringify(key))).size).toBe(starts.length - 1);
  });

  it('goes on past pages a filter left empty', async () => {
    const found: number[] = [];
    let pages = 0;
    const filtered = scanPages(
      doc,
      {
        TableName: TABLE,
        Limit: 2,
        FilterExpression: '#n = :n',
        ExpressionAttributeNames: { '#n': 'n' },
        ExpressionAttributeValues: { ':n': 17 },
      },
      'suppression',
    );
    for await (const items of filtered) {
      pages++;
      found.push(...items.map((item) => Number(item['n'])));
    }
    expect(found).toEqual([17]);
    expect(pages).toBeGreaterThan(5);
  });

  it("runs the caller's loop body on a page before the next page is read", async () => {
    starts = [];
    let scansWhenFirstPageHandled = -1;
    for await (const _ of scanPages(doc, { TableName: TABLE, Limit: 5 }, 'suppression')) {
      if (scansWhenFirstPageHandled === -1) scansWhenFirstPageHandled = starts.length;
    }
    expect(scansWhenFirstPageHandled).toBe(1);
    expect(starts.length).toBeGreaterThan(1);
  });

  it('a failed page is a TransientError naming the table, with the cause kept', async () => {
    const fault = injectFault(doc, {
      command: 'ScanCommand',
      times: 1,
      when: (input) => input.ExclusiveStartKey !== undefined,
    });
    const read: number[] = [];
    let caught: unknown;
    try {
      for await (const items of scanPages(doc, { TableName: TABLE, Limit: 5 }, 'inbox')) read.push(items.length);
    } catch (error) {
      caught = error;
    } finally {
      fault.remove();
    }
    expect(fault.hits).toBe(1);
    expect(read).toEqual([5]);
    expect(caught).toBeInstanceOf(TransientError);
    expect((caught as Error).message).toBe('inbox scan failed');
    expect(((caught as Error).cause as Error).message).toBe('injected ScanCommand failure');
  });
});
