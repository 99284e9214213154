/**
 * On DynamoDB, a refused conditional put returns the stored item with its failure
 * (ReturnValuesOnConditionCheckFailure ALL_OLD), and the store merges from that item without reading.
 * aws-sdk-client-mock: dynalite ignores the option and returns no item (that path, a read, is tested
 * on dynalite in test/integration/suppression-create-first.test.ts).
 */
import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { DynamoSuppressionStore } from '../../../lambdas/adapters/dynamodb-suppressions.js';
import type { NormalizedEvent } from '../../../lambdas/core/event.js';
import { applyEvent, changeTopicManually } from '../../../lambdas/core/suppression/index.js';
import { CURRENT_SUPPRESSION_SCHEMA } from '../../../lambdas/core/suppression/schema.js';

const T0 = Date.UTC(2026, 0, 1);
const EMAIL = 'known@example.com';
const complaint: Omit<NormalizedEvent, 'raw'> = {
  provider: 'generic',
  eventId: 'c1',
  recipient: EMAIL,
  kind: 'complaint',
  occurredAt: T0 + 1000,
  detail: {},
};
/** The stored record: a topic opt-out, version 3. */
const existing = changeTopicManually(undefined, EMAIL, 'newsletter', 'unsubscribe', {
  actor: 'ops',
  reason: 'asked',
  at: T0,
}).record;

const refused = (item?: Record<string, unknown>) =>
  new ConditionalCheckFailedException({
    message: 'The conditional request failed',
    $metadata: {},
    ...(item ? { Item: marshall(item, { removeUndefinedValues: true }) } : {}),
  });

describe('DynamoSuppressionStore: the item returned with a refused create', () => {
  const ddb = mockClient(DynamoDBDocumentClient);
  afterEach(() => ddb.reset());
  const store = () =>
    new DynamoSuppressionStore(
      DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' })),
      'suppressions',
    );

  it('stands in for the read: no GetItem, and the merge is put on the returned version', async () => {
    ddb
      .on(PutCommand)
      .rejectsOnce(refused({ ...existing, version: 3, updatedAt: T0, schemaVersion: CURRENT_SUPPRESSION_SCHEMA }))
      .resolves({});
    const result = await store().apply(complaint);
    expect(result).toMatchObject({ changed: true, becameSuppressed: true });
    expect(ddb.commandCalls(GetCommand)).toHaveLength(0);
    const puts = ddb.commandCalls(PutCommand).map((c) => c.args[0].input);
    expect(puts).toHaveLength(2);
    expect(puts[0]).toMatchObject({
      ConditionExpression: 'attribute_not_exists(#email)',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    expect(puts[1]).toMatchObject({
      ConditionExpression: '#version = :version',
      ExpressionAttributeValues: { ':version': 3 },
      Item: { version: 4, status: 'suppressed' },
    });
    const { version: _v, updatedAt: _u, schemaVersion: _s, ...written } = puts[1]!.Item as Record<string, unknown>;
    const merged = applyEvent(existing, { ...complaint, raw: '' }).record;
    expect(written).toMatchObject(merged);
    expect((written.topics as typeof merged.topics)?.newsletter?.status).toBe('unsubscribed');
  });

  it('a refusal without the item (an endpoint that ignores the option): one consistent read, then the guarded put', async () => {
    ddb.on(PutCommand).rejectsOnce(refused()).resolves({});
    ddb.on(GetCommand).resolves({ Item: { ...existing, version: 3, updatedAt: T0 } });
    await store().apply(complaint);
    expect(ddb.commandCalls(GetCommand).map((c) => c.args[0].input.ConsistentRead)).toEqual([true]);
    expect(ddb.commandCalls(PutCommand)[1]!.args[0].input).toMatchObject({
      ExpressionAttributeValues: { ':version': 3 },
    });
  });

  it('a version-guarded put that loses a race merges from the winner it returned, without reading again', async () => {
    ddb.on(GetCommand).resolves({ Item: { ...existing, version: 3, updatedAt: T0 } });
    ddb
      .on(PutCommand)
      .rejectsOnce(refused()) // the create: dynalite-like, no item
      .rejectsOnce(refused({ ...existing, version: 4, updatedAt: T0 })) // someone wrote version 4 meanwhile
      .resolves({});
    await store().apply(complaint);
    expect(ddb.commandCalls(GetCommand)).toHaveLength(1);
    expect(ddb.commandCalls(PutCommand).map((c) => c.args[0].input.ExpressionAttributeValues?.[':version'])).toEqual([
      undefined,
      3,
      4,
    ]);
  });
});
