/**
 * The backfill's two marks (lambdas/adapters/dynamodb-sync-marks.ts) on real dynalite: `change` sets a
 * marker only where none is live; `scopes` always counts a new sync change (every provider then lags),
 * sets the marker where none is live, and leaves a live marker's due time as it is.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../lambdas/adapters/aws-clients.js';
import { DynamoSuppressionSync } from '../../lambdas/adapters/dynamodb-suppression-sync.js';
import { DynamoSuppressionStore } from '../../lambdas/adapters/dynamodb-suppressions.js';
import { DEAD_DUE_MS } from '../../lambdas/core/sync/ledger.js';
import { type Emulator, startDynamo } from '../../lib/local/emulators.js';
import { createTables } from './harness.js';

const T0 = Date.UTC(2026, 0, 1);
const TABLE = 'suppressions-backfill-marks';

describe('backfill marks, on dynalite', () => {
  let dynamo: Emulator;
  let doc: DynamoDBDocumentClient;
  let ledger: DynamoSuppressionSync;
  beforeAll(async () => {
    dynamo = await startDynamo();
    await createTables(dynamo.endpoint, { inbox: 'inbox-backfill-marks', suppression: TABLE });
    doc = createDocumentClient({ region: 'us-east-1', dynamoEndpoint: dynamo.endpoint });
    ledger = new DynamoSuppressionSync(doc, TABLE, () => T0);
  });
  afterAll(async () => {
    doc?.destroy();
    await dynamo?.stop();
  });

  /** A suppressed record with no marker, every provider caught up with its change. */
  const settledRecord = async (email: string) => {
    await new DynamoSuppressionStore(doc, TABLE).apply({
      provider: 'generic',
      eventId: `complaint-${email}`,
      recipient: email,
      kind: 'complaint',
      occurredAt: T0,
      detail: {},
    });
    const view = (await ledger.read(email))!;
    const caughtUp = { sendgrid: { at: T0, lists: ['global_unsubscribes'], change: view.change } };
    expect(await ledger.commit(email, view.version, caughtUp, 'clear')).toBe(true);
    return (await ledger.read(email))!;
  };

  it('`change`: a marker where none is live, and no new change', async () => {
    const before = await settledRecord('change@example.com');
    expect(before.due).toBeUndefined();
    expect(await ledger.markPending('change@example.com', T0 + 1, 'change')).toBe(true);
    expect(await ledger.read('change@example.com')).toMatchObject({ due: T0 + 1, change: before.change });
    expect(await ledger.markPending('change@example.com', T0 + 2, 'change')).toBe(false);
    expect((await ledger.read('change@example.com'))!.due).toBe(T0 + 1);
  });

  it('`scopes`: a new change and a marker; on a live marker, the change alone; on a parked one, due again', async () => {
    const email = 'scopes@example.com';
    const before = await settledRecord(email);
    expect(await ledger.markPending(email, T0 + 5, 'scopes')).toBe(true);
    const marked = (await ledger.read(email))!;
    expect(marked).toMatchObject({ due: T0 + 5, change: before.change + 1 });
    expect(marked.version).toBeGreaterThan(before.version);

    expect(await ledger.markPending(email, T0 + 9, 'scopes')).toBe(true);
    expect(await ledger.read(email)).toMatchObject({ due: T0 + 5, change: before.change + 2 });

    const live = (await ledger.read(email))!;
    expect(await ledger.commit(email, live.version, live.sync, { due: DEAD_DUE_MS })).toBe(true);
    expect(await ledger.markPending(email, T0 + 7, 'scopes')).toBe(true);
    expect(await ledger.read(email)).toMatchObject({ due: T0 + 7, change: before.change + 3 });
  });

  it('neither mark writes an address that is not in the table', async () => {
    for (const why of ['change', 'scopes'] as const)
      expect(await ledger.markPending('absent@example.com', T0, why)).toBe(false);
    expect(await ledger.read('absent@example.com')).toBeUndefined();
  });
});
