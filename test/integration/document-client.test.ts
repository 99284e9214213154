/**
 * The document client's cached route (lambdas/adapters/document-client.ts), on real dynalite: PutItem,
 * UpdateItem and BatchGetItem sent through the twin client must store and return exactly what the plain
 * lib-dynamodb client stores and returns, resolve their middleware once, and step aside for a client
 * whose stack someone changed.
 */
import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDocumentClient, isConditionalCheckFailure } from '../../lambdas/adapters/aws-clients.js';
import { CachedDocumentClient } from '../../lambdas/adapters/document-client.js';
import { type Emulator, startDynamo } from '../../lib/local/emulators.js';
import { createTables } from './harness.js';

const TABLE = 'document-client-suppressions';
const TRANSLATE = { marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false } };

/** Nested maps and lists, an empty map, numbers, booleans, null, a string set and an undefined to drop. */
const item = (email: string) => ({
  email,
  version: 1,
  reasons: ['hard_bounce', 'manual'],
  sync: { sendgrid: { at: 1_700_000_000_000, ok: true, topics: { news: { out: true } } }, ses: {} },
  note: null,
  tags: new Set(['a', 'b']),
  dropped: undefined,
});

describe('the document client with its per-event commands on a cached twin', () => {
  let dynamo: Emulator;
  let cached: DynamoDBDocumentClient;
  let plain: DynamoDBDocumentClient;
  beforeAll(async () => {
    dynamo = await startDynamo();
    await createTables(dynamo.endpoint, { inbox: 'document-client-inbox', suppression: TABLE });
    cached = createDocumentClient({ region: 'us-east-1', dynamoEndpoint: dynamo.endpoint });
    const raw = new DynamoDBClient({
      region: 'us-east-1',
      endpoint: dynamo.endpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    plain = DynamoDBDocumentClient.from(raw, TRANSLATE);
  });
  afterAll(async () => {
    cached?.destroy();
    plain?.destroy();
    await dynamo?.stop();
  });

  const get = async (email: string) =>
    (await plain.send(new GetCommand({ TableName: TABLE, Key: { email }, ConsistentRead: true }))).Item;

  it('is the cached kind, and stores what the plain client stores, also after lib-dynamodb has run a command', async () => {
    expect(cached).toBeInstanceOf(CachedDocumentClient);
    // A GetCommand first: lib-dynamodb then rewrites the translate options it was given (see the class).
    await cached.send(new GetCommand({ TableName: TABLE, Key: { email: 'none@example.com' } }));
    await cached.send(new PutCommand({ TableName: TABLE, Item: item('cached@example.com') }));
    await plain.send(new PutCommand({ TableName: TABLE, Item: item('plain@example.com') }));
    const a = await get('cached@example.com');
    const b = await get('plain@example.com');
    expect({ ...a, email: 'x' }).toEqual({ ...b, email: 'x' });
    expect(a).not.toHaveProperty('dropped');
    expect(a?.sync).toEqual(item('x').sync);
  });

  it('updates with the same answer: attributes back unmarshalled, a failed condition as the SDK error', async () => {
    for (const client of [cached, plain]) {
      const email = `update-${client === cached ? 'cached' : 'plain'}@example.com`;
      await client.send(new PutCommand({ TableName: TABLE, Item: item(email) }));
      const out = await client.send(
        new UpdateCommand({
          TableName: TABLE,
          Key: { email },
          UpdateExpression: 'SET #sync = :sync, #version = :next REMOVE #note',
          ConditionExpression: '#version = :version',
          ExpressionAttributeNames: { '#sync': 'sync', '#version': 'version', '#note': 'note' },
          ExpressionAttributeValues: { ':sync': { resend: { at: 5 } }, ':version': 1, ':next': 2 },
          ReturnValues: 'ALL_NEW',
        }),
      );
      expect(out.Attributes).toMatchObject({ email, version: 2, sync: { resend: { at: 5 } } });
      expect(out.Attributes).not.toHaveProperty('note');
      const stale = client.send(
        new UpdateCommand({
          TableName: TABLE,
          Key: { email },
          UpdateExpression: 'SET #version = :next',
          ConditionExpression: '#version = :version',
          ExpressionAttributeNames: { '#version': 'version' },
          ExpressionAttributeValues: { ':version': 1, ':next': 2 },
        }),
      );
      const error = await stale.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isConditionalCheckFailure(error)).toBe(true);
      expect((await get(email))?.version).toBe(2);
    }
  });

  it('reads a batch back as plain items, keyed as asked', async () => {
    const emails = ['b1@example.com', 'b2@example.com', 'b3@example.com'];
    for (const email of emails) await plain.send(new PutCommand({ TableName: TABLE, Item: item(email) }));
    const ask = (client: DynamoDBDocumentClient) =>
      client.send(
        new BatchGetCommand({
          RequestItems: {
            [TABLE]: { Keys: [...emails, 'absent@example.com'].map((email) => ({ email })), ConsistentRead: true },
          },
        }),
      );
    const byEmail = (items: Record<string, unknown>[] = []) => Object.fromEntries(items.map((i) => [i.email, i]));
    const fromCached = await ask(cached);
    const fromPlain = await ask(plain);
    expect(byEmail(fromCached.Responses?.[TABLE])).toEqual(byEmail(fromPlain.Responses?.[TABLE]));
    expect(Object.keys(byEmail(fromCached.Responses?.[TABLE])).sort()).toEqual(emails);
  });

  it('resolves a command class middleware once, where the plain client resolves it on every call', async () => {
    const spy = vi.spyOn(PutItemCommand.prototype, 'resolveMiddleware');
    const client = createDocumentClient({ region: 'us-east-1', dynamoEndpoint: dynamo.endpoint });
    try {
      for (let i = 0; i < 4; i++)
        await client.send(new PutCommand({ TableName: TABLE, Item: item(`once${i}@example.com`) }));
      expect(spy).toHaveBeenCalledTimes(1);
      spy.mockClear();
      for (let i = 0; i < 4; i++)
        await plain.send(new PutCommand({ TableName: TABLE, Item: item(`every${i}@example.com`) }));
      expect(spy).toHaveBeenCalledTimes(4);
    } finally {
      spy.mockRestore();
      client.destroy();
    }
  });

  it('leaves the legacy parameters to lib-dynamodb, which marshals their values', async () => {
    const email = 'legacy@example.com';
    await cached.send(new PutCommand({ TableName: TABLE, Item: item(email) }));
    await cached.send(
      new PutCommand({
        TableName: TABLE,
        Item: { ...item(email), version: 2 },
        Expected: { version: { Value: 1, ComparisonOperator: 'EQ' } },
      }),
    );
    expect((await get(email))?.version).toBe(2);
  });

  it('honours middleware added to it: a fault injected on UpdateItem reaches the update', async () => {
    const client = createDocumentClient({ region: 'us-east-1', dynamoEndpoint: dynamo.endpoint });
    try {
      // Used first, so the twin has cached the update's stack before the middleware arrives.
      await client.send(new PutCommand({ TableName: TABLE, Item: item('fault@example.com') }));
      const update = () =>
        client.send(
          new UpdateCommand({
            TableName: TABLE,
            Key: { email: 'fault@example.com' },
            UpdateExpression: 'SET #n = :n',
            ExpressionAttributeNames: { '#n': 'n' },
            ExpressionAttributeValues: { ':n': 1 },
          }),
        );
      await update();
      const seen: string[] = [];
      client.middlewareStack.add(
        (next, context) => (args) => {
          seen.push(context.commandName!);
          if (context.commandName === 'UpdateItemCommand') throw new Error('injected');
          return next(args);
        },
        { step: 'initialize', name: 'injectUpdateFault' },
      );
      await expect(update()).rejects.toThrow('injected');
      expect(seen).toEqual(['UpdateItemCommand']);
    } finally {
      client.destroy();
    }
  });
});
