/**
 * Every reader of the two tables on dynalite goes through its versioned reader, and every writer stores
 * today's version: items of each older shape (fixtures written by the code of their day) are put as they
 * were, then read by the store (get, scan), the client and the in-repo isSuppressed.
 */
import { readFileSync } from 'node:fs';
import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../lambdas/adapters/aws-clients.js';
import { DynamoInbox } from '../../lambdas/adapters/dynamodb-inbox.js';
import { DynamoSuppressionSync } from '../../lambdas/adapters/dynamodb-suppression-sync.js';
import { DynamoSuppressionStore } from '../../lambdas/adapters/dynamodb-suppressions.js';
import { encodePayload } from '../../lambdas/adapters/inbox-codec.js';
import { isSuppressed } from '../../lambdas/adapters/is-suppressed.js';
import { createSuppressionClient } from '../../lambdas/client/index.js';
import { TransientError } from '../../lambdas/core/errors.js';
import { startTestStack, type TestStack } from './harness.js';

type Fixture = Record<string, Record<string, unknown>>;
const fixture = (name: string): Fixture =>
  JSON.parse(readFileSync(new URL(`../fixtures/suppression-schema/${name}`, import.meta.url), 'utf8')) as Fixture;
const beforeTopics = fixture('v1-before-topics.json');
const withTopics = fixture('v1-with-topics.json');

let stack: TestStack;
let doc: DynamoDBDocumentClient;
let store: DynamoSuppressionStore;
const put = (Item: Record<string, unknown>, TableName = stack.config.suppressionTable) =>
  doc.send(new PutCommand({ TableName, Item }));

beforeAll(async () => {
  stack = await startTestStack();
  doc = createDocumentClient(stack.config);
  store = new DynamoSuppressionStore(doc, stack.config.suppressionTable, undefined, { now: () => 42 });
  for (const item of [...Object.values(beforeTopics), ...Object.values(withTopics)]) await put(item);
});
afterAll(async () => {
  doc?.destroy();
  await stack?.stop();
});

describe('the suppression table', () => {
  it('the store reads a version-1 item before topics in today’s shape (get and scan)', async () => {
    const old = beforeTopics['unsubscribed']!;
    const today = { ...old, topics: {}, transactionalStatus: 'active', schemaVersion: 6 };
    expect(await store.get('old@example.com')).toEqual(today);
    const scanned: Record<string, unknown>[] = [];
    await store.scan({}, (records) => void scanned.push(...(records as unknown as Record<string, unknown>[])));
    expect(scanned.find((r) => r['email'] === 'old@example.com')).toEqual(today);
    expect(scanned.find((r) => r['email'] === 'bounced@example.com')).toMatchObject({
      transactionalStatus: 'suppressed',
      schemaVersion: 6,
    });
  });

  it('the sync worker reads them in today’s shape too, so its planner sees topics and transactionalStatus', async () => {
    const view = await new DynamoSuppressionSync(doc, stack.config.suppressionTable).read('old@example.com');
    const { version: _v, updatedAt: _u, schemaVersion: _s, ...record } = beforeTopics['unsubscribed']!;
    expect(view?.record).toEqual({ ...record, topics: {}, transactionalStatus: 'active' });
  });

  it('the client reads them the same way: getRecord, isSuppressed and filterSendable', async () => {
    const client = createSuppressionClient({
      tableName: stack.config.suppressionTable,
      endpoint: stack.config.dynamoEndpoint!,
      region: 'us-east-1',
    });
    expect(await client.getRecord('old@example.com')).toMatchObject({
      topics: {},
      transactionalStatus: 'active',
      schemaVersion: 6,
      version: 3,
    });
    expect(await client.isSuppressed('old@example.com', { transactional: true })).toBe(false);
    expect(await client.isSuppressed('bounced@example.com', { transactional: true })).toBe(true);
    expect(
      await client.filterSendable(['old@example.com', 'bounced@example.com', 'topics@example.com'], {
        transactional: true,
        topic: 'offers',
      }),
    ).toEqual({
      // Unsubscribed from all subscription mail, but never from a password reset, and it had no topics.
      sendable: ['old@example.com'],
      suppressed: [
        { email: 'bounced@example.com', reason: 'hard_bounce' },
        { email: 'topics@example.com', reason: 'topic_unsubscribed' },
      ],
    });
  });

  it('so does the in-repo isSuppressed', async () => {
    const options = { client: doc, tableName: stack.config.suppressionTable, transactional: true };
    expect(await isSuppressed('old@example.com', options)).toBe(false);
    expect(await isSuppressed('bounced@example.com', options)).toBe(true);
  });

  it('a write stores today’s version beside the lock counter, and an item from newer code is never overwritten', async () => {
    await store.apply({
      provider: 'ses',
      eventId: 'c1',
      recipient: 'bounced@example.com',
      kind: 'complaint',
      occurredAt: 1_795_953_700_000,
      detail: {},
    });
    expect(await stack.record('bounced@example.com')).toMatchObject({
      schemaVersion: 6,
      version: 3,
      updatedAt: 42,
      transactionalStatus: 'suppressed',
      topics: {},
    });
    await store.apply({
      provider: 'ses',
      eventId: 'n1',
      recipient: 'new@example.com',
      kind: 'hard_bounce',
      occurredAt: 1,
      detail: {},
    });
    expect(await stack.record('new@example.com')).toMatchObject({ schemaVersion: 6, version: 1 });

    await put({
      ...withTopics['unsubscribed']!,
      email: 'newer@example.com',
      schemaVersion: 7,
      sync: { ses: 'pending' },
    });
    const newer = store.apply({
      provider: 'ses',
      eventId: 'n2',
      recipient: 'newer@example.com',
      kind: 'complaint',
      occurredAt: 1,
      detail: {},
    });
    await expect(newer).rejects.toThrow(TransientError);
    await expect(newer).rejects.toThrow("suppression item is schema 7, newer than this code's 6; retried");
    expect(await stack.record('newer@example.com')).toMatchObject({
      schemaVersion: 7,
      sync: { ses: 'pending' },
      version: 3,
    });
  });
});

describe('the inbox table', () => {
  it('get and the restart scan read a version-1 row; a row of no version this code knows is refused, not misread', async () => {
    const inbox = new DynamoInbox(doc, stack.config.inboxTable, { ttlSeconds: 60 });
    const events = [
      {
        provider: 'generic',
        eventId: 'v1-row',
        recipient: 'a@example.com',
        kind: 'hard_bounce' as const,
        occurredAt: 1,
        detail: {},
      },
    ];
    const expiresAt = Math.floor(Date.now() / 1000) + 3600;
    await put(
      { pk: 'generic#v1-row', status: 'queued', expiresAt, body: encodePayload(events, 'raw bytes', 1), v: 1 },
      stack.config.inboxTable,
    );
    const row = { pk: 'generic#v1-row', status: 'queued', expiresAt, events, raw: 'raw bytes' };
    expect(await inbox.get('generic#v1-row')).toEqual(row);
    const listed = [];
    for await (const page of inbox.listStored(Date.now())) listed.push(...page);
    expect(listed).toContainEqual(row);
    await put(
      { pk: 'generic#v9-row', status: 'queued', expiresAt, body: new Uint8Array([1, 2]), v: 9 },
      stack.config.inboxTable,
    );
    await expect(inbox.get('generic#v9-row')).rejects.toThrow('unknown inbox codec version 9');
  });
});
