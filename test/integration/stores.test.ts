/**
 * The real adapters on dynalite and fauxqs against the port contracts the in-memory fakes also pass
 * (test/contracts, test/unit/pipeline/fakes-contract.test.ts), then what only the adapters have. The
 * contract clients are the adapters' own, so an injected fault never reaches the runtime's.
 */

import { CreateQueueCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient, createSqsClient } from '../../lambdas/adapters/aws-clients.js';
import { DynamoControlLedger } from '../../lambdas/adapters/dynamodb-control-ledger.js';
import { DynamoInbox } from '../../lambdas/adapters/dynamodb-inbox.js';
import { DynamoNonceStore } from '../../lambdas/adapters/dynamodb-nonces.js';
import { DynamoSuppressionStore } from '../../lambdas/adapters/dynamodb-suppressions.js';
import { SqsEventQueue } from '../../lambdas/adapters/sqs-queue.js';
import type { NormalizedEvent } from '../../lambdas/core/event.js';
import type { QueuedEvent } from '../../lambdas/core/pipeline/ports.js';
import { describeControlLedgerContract } from '../contracts/control-ledger.contract.js';
import { describeEventQueueContract } from '../contracts/event-queue.contract.js';
import { describeInboxStoreContract } from '../contracts/inbox-store.contract.js';
import { describeNonceStoreContract } from '../contracts/nonce-store.contract.js';
import { describeSuppressionStoreContract } from '../contracts/suppression-store.contract.js';
import { uniqueId } from '../contracts/unique-id.js';
import { injectFault, startTestStack, type TestStack } from './harness.js';

const DAY_MS = 86_400_000;

let stack: TestStack;
let doc: DynamoDBDocumentClient;
let sqs: SQSClient;
beforeAll(async () => {
  stack = await startTestStack();
  doc = createDocumentClient(stack.config);
  sqs = createSqsClient(stack.config);
});
afterAll(async () => {
  doc?.destroy();
  sqs?.destroy();
  await stack?.stop();
});

describeInboxStoreContract('DynamoInbox on dynalite', (ttlSeconds) => {
  const inbox = new DynamoInbox(doc, stack.config.inboxTable, { ttlSeconds });
  return {
    inbox,
    storedRaw: async (pk) => (await inbox.get(pk))?.raw,
    failNextStore: () => void injectFault(doc, { command: 'PutItemCommand', times: 1 }),
  };
});

describeEventQueueContract('SqsEventQueue on fauxqs', async () => {
  const { QueueUrl: queueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: uniqueId('contract') }));
  return {
    queue: new SqsEventQueue(sqs, () => queueUrl!),
    async receiveAll() {
      const received: QueuedEvent[] = [];
      for (;;) {
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 0,
            VisibilityTimeout: 300,
          }),
        );
        if (Messages.length === 0) return received;
        received.push(...Messages.map((m) => JSON.parse(m.Body!) as QueuedEvent));
      }
    },
    failNextSend: () => void injectFault(sqs, { command: 'SendMessageBatchCommand', times: 1 }),
  };
});

describeControlLedgerContract(
  'DynamoControlLedger on dynalite',
  () => new DynamoControlLedger(doc, stack.config.inboxTable, 3600),
);

describeNonceStoreContract(
  'DynamoNonceStore on dynalite',
  (now) => new DynamoNonceStore(doc, stack.config.inboxTable, now),
);

describeSuppressionStoreContract('DynamoSuppressionStore on dynalite', () => {
  const store = new DynamoSuppressionStore(doc, stack.config.suppressionTable);
  return {
    store,
    async read(email) {
      const item = await store.get(email);
      if (!item) return undefined;
      const { version: _version, updatedAt: _updatedAt, ...record } = item;
      return record;
    },
  };
});

describe('DynamoInbox rows as stored', () => {
  it('a row re-admitted past its TTL carries the new expiry and decodes to the events without raw', async () => {
    const ttlSeconds = DAY_MS / 1000;
    const event: NormalizedEvent = {
      provider: 'generic',
      eventId: 'ttl-1',
      recipient: 'ttl@example.com',
      kind: 'complaint',
      occurredAt: 1,
      detail: {},
      raw: '{"id":"ttl-1"}',
    };
    const start = Date.UTC(2026, 0, 1);
    const inbox = new DynamoInbox(stack.clients.doc, stack.config.inboxTable, { ttlSeconds });
    expect(await inbox.store(inbox.prepare([event], start))).toBe(true);
    expect(await inbox.store(inbox.prepare([event], start + DAY_MS + 1_000))).toBe(true);
    const row = await inbox.get('generic#ttl-1');
    expect(row).toMatchObject({
      status: 'queued',
      expiresAt: Math.floor((start + DAY_MS + 1_000) / 1000) + ttlSeconds,
      raw: '{"id":"ttl-1"}',
    });
    const { raw: _raw, ...stored } = event;
    expect(row!.events).toEqual([stored]);
  });
});
