/**
 * The sweeper's backfill and its sweep of the outbox share one sweep's time, backfill first. A backfill
 * step pages until it has marked its budget, the table ends, or its deadline passes; over a table whose
 * records mostly need nothing (active records: soft-bounce counts, reactivations) it marks little, so
 * it pages until its deadline. Were that the sweep's own deadline, the sweep of the outbox after it would
 * read no page (`pending` stops at a passed deadline before its first page), every sweep until the
 * backfill ended: a lost fast-path message, or a lapsed lease, would wait for the whole backfill, and
 * locally the start sweep (`all`, with `recheck`) would be skipped too. So the backfill gets at most
 * half of the sweep's time (`buildSyncSweeper`). Here each Scan page of the backfill takes 2 s of the
 * sweeper's clock, standing in for a big table.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoSuppressionStore } from '../../lambdas/adapters/dynamodb-suppressions.js';
import { buildSyncSweeper } from '../../lambdas/adapters/wiring/sync-sweeper.js';
import { policyFromSettings } from '../../lambdas/core/suppression/index.js';
import { ensureSyncQueues } from '../../lib/local/sync.js';
import { startTestStack, type TestStack } from './harness.js';

describe('a long backfill step and the sweep of the outbox', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ env: {} });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('a due change is still swept while a backfill step runs to the deadline', async () => {
    const store = new DynamoSuppressionStore(stack.clients.doc, stack.config.suppressionTable, policyFromSettings({}));
    // Records a new provider needs nothing of: soft bounces on active addresses.
    for (let i = 0; i < 30; i++)
      await store.apply({
        provider: 'ses',
        eventId: `soft-${i}`,
        recipient: `soft${i}@example.com`,
        kind: 'soft_bounce',
        occurredAt: Date.now(),
        detail: {},
      });
    // One change whose fast-path message was lost: marked, due within the sweep's horizon.
    await store.suppress('lost@example.com', { actor: 'ops', reason: 'complaint', at: Date.now() });
    expect((await stack.record('lost@example.com'))?.syncPending).toMatch(/^pending#/);

    const { queueUrl } = await ensureSyncQueues(stack.clients.sqs, 'deadline-sync');
    let clock = Date.now();
    // Each Scan page of the backfill takes 2 s (a big table, a loaded DynamoDB); nothing else moves the clock.
    const slowScans = new Proxy(stack.clients.doc, {
      get(target, key, receiver) {
        if (key !== 'send') return Reflect.get(target, key, receiver);
        return (command: unknown) => {
          if (command instanceof ScanCommand) clock += 2_000;
          return target.send(command as never);
        };
      },
    });
    const sweeper = buildSyncSweeper(
      // A rate that gives the backfill one record a step's page, as a slow Scan of a big table would.
      {
        ...stack.config,
        settings: { ...stack.config.settings, SYNC_PROVIDERS: 'sendgrid', SYNC_SENDGRID_RATE: '0.02' },
      },
      { doc: slowScans, sqs: stack.clients.sqs },
      { queueUrl: () => queueUrl },
      { now: () => clock },
    );
    const start = clock;
    const report = await sweeper.sweep({ dueBefore: start + 3_600_000, deadline: start + 40_000 });
    expect(report.backfill.sendgrid?.done).toBe(false);
    expect(report.sent).toBe(1);
  });
});
