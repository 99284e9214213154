/**
 * The backfill's mark and a record write that does not change what a provider should hold (a soft
 * bounce, a delivery, another complaint on a suppressed address). The writer puts the whole item on
 * the version it read, carrying the sync fields it read with it; a mark that landed in between must
 * survive that put, or the backfill counts the record as marked, moves its cursor past it, and the new
 * provider never gets it (no marker: `sync status` does not even count it).
 */
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoSuppressionSync } from '../../lambdas/adapters/dynamodb-suppression-sync.js';
import { DynamoSuppressionStore } from '../../lambdas/adapters/dynamodb-suppressions.js';
import { policyFromSettings } from '../../lambdas/core/suppression/index.js';
import { startTestStack, type TestStack } from './harness.js';

describe('backfill mark racing a record write', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ env: {} });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('a mark between the writer’s read and its put is kept', async () => {
    const email = 'race@example.com';
    const table = stack.config.suppressionTable;
    const doc = stack.clients.doc;
    await new DynamoSuppressionStore(doc, table, policyFromSettings({})).suppress(email, {
      actor: 'ops',
      reason: 'complaint',
      at: Date.now(),
    });
    // Pushed to the providers configured then: no marker left.
    await doc.send(
      new UpdateCommand({ TableName: table, Key: { email }, UpdateExpression: 'REMOVE syncPending, syncDue' }),
    );
    const ledger = new DynamoSuppressionSync(doc, table);
    // The writer's client: the backfill marks the record just before the writer's put goes out.
    let marked: boolean | undefined;
    const racing = new Proxy(doc, {
      get(target, key, receiver) {
        if (key !== 'send') return Reflect.get(target, key, receiver);
        return async (command: unknown) => {
          if (command instanceof PutCommand && marked === undefined)
            marked = await ledger.markPending(email, Date.now());
          return target.send(command as never);
        };
      },
    });
    const writer = new DynamoSuppressionStore(racing, table, policyFromSettings({}));
    await writer.apply({
      provider: 'ses',
      eventId: 'soft-1',
      recipient: email,
      kind: 'soft_bounce',
      occurredAt: Date.now(),
      detail: {},
    });
    expect(marked).toBe(true);
    const item = await stack.record(email);
    expect(item?.syncPending).toMatch(/^pending#/);
  });
});
