/**
 * The backfill's outbox marker against a record writer racing it, on real dynalite. The writer puts the
 * whole item on the version it read, carrying the sync fields it read; the backfill's markPending is an
 * UpdateItem that sets the marker on a record that has none. If the marker left the version as it was,
 * a writer that read before it would put the item back without the marker (its change moved nothing a
 * provider holds, so it adds none), the backfill's cursor has moved on, and the address would never be
 * pushed. The interleaving is forced by running markPending right after the writer's read returns.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../lambdas/adapters/aws-clients.js';
import { DynamoSuppressionSync } from '../../lambdas/adapters/dynamodb-suppression-sync.js';
import { DynamoSuppressionStore } from '../../lambdas/adapters/dynamodb-suppressions.js';
import type { ActionableKind, NormalizedEvent } from '../../lambdas/core/event.js';
import { type Emulator, startDynamo } from '../../lib/local/emulators.js';
import { createTables } from './harness.js';

const T0 = Date.UTC(2026, 0, 1);
const EMAIL = 'backfilled@example.com';
const TABLE = 'suppressions-marker-race';

const event = (kind: ActionableKind, at: number): Omit<NormalizedEvent, 'raw'> => ({
  provider: 'generic',
  eventId: `${kind}-${at}`,
  recipient: EMAIL,
  kind,
  occurredAt: at,
  detail: {},
});

describe('the backfill marker and a racing record write, on dynalite', () => {
  let dynamo: Emulator;
  let doc: DynamoDBDocumentClient;
  let racing: DynamoDBDocumentClient;
  beforeAll(async () => {
    dynamo = await startDynamo();
    await createTables(dynamo.endpoint, { inbox: 'inbox-marker-race', suppression: TABLE });
    doc = createDocumentClient({ region: 'us-east-1', dynamoEndpoint: dynamo.endpoint });
    racing = createDocumentClient({ region: 'us-east-1', dynamoEndpoint: dynamo.endpoint });
  });
  afterAll(async () => {
    doc?.destroy();
    racing?.destroy();
    await dynamo?.stop();
  });

  it('a writer that read before the marker was set does not put the item back without it', async () => {
    const ledger = new DynamoSuppressionSync(doc, TABLE, () => T0);
    // A suppressed record whose change no provider has pushed, and no marker: what the backfill looks for.
    await new DynamoSuppressionStore(doc, TABLE).apply(event('complaint', T0));
    const view = (await ledger.read(EMAIL))!;
    expect(await ledger.commit(EMAIL, view.version, view.sync, 'clear')).toBe(true);

    // The backfill marks it right after the writer's read returned.
    let marked = false;
    racing.middlewareStack.add(
      (next, context) => async (args) => {
        const output = await next(args);
        if (context.commandName === 'GetItemCommand' && !marked) {
          marked = true;
          expect(await ledger.markPending(EMAIL, T0)).toBe(true);
        }
        return output;
      },
      { step: 'initialize', name: 'backfillAfterRead' },
    );
    // A delivery: the record changes (lastDeliveredAt), what providers hold does not.
    const result = await new DynamoSuppressionStore(racing, TABLE).apply(event('delivered', T0 + 1_000));
    expect(result.changed).toBe(true);
    expect(marked).toBe(true);

    const after = (await ledger.read(EMAIL))!;
    expect(after.record.lastDeliveredAt).toBe(T0 + 1_000);
    expect(after.due).toBe(T0);
  });
});
