/**
 * kill -9 of `npm start` while the SES feed holds 500 messages: after a restart every one is applied,
 * once each. fauxqs runs in this test process (SQS_ENDPOINT), so the queues outlive the runtime as SQS
 * does; with the embedded emulator the feed's messages would die with the process (an SNS-fed queue on
 * AWS never does). DynamoDB is the runtime's own dynalite, on disk in its data directory.
 */
import {
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  SendMessageBatchCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient, createSqsClient } from '../../lambdas/adapters/aws-clients.js';
import { scanPages } from '../../lambdas/adapters/dynamodb-scan.js';
import { findDemoSigner } from '../../lib/demo/index.js';
import { ensureQueues } from '../../lib/local/bootstrap.js';
import { ensureDemoCredentials } from '../../lib/local/demo-credentials.js';
import { type Emulator, startSqs } from '../../lib/local/emulators.js';
import { readState } from '../../lib/local/state.js';
import { type LocalProcess, spawnLocal, tempDataDir } from './local-process.js';

const MESSAGES = 500;
const DEADLINE_MS = 5 * 60 * 1000;

describe('kill -9 with 500 messages on the SES feed', () => {
  let sqsEmulator: Emulator;
  let sqs: SQSClient;
  let dataDir: string;
  const children: LocalProcess[] = [];
  beforeAll(async () => {
    sqsEmulator = await startSqs();
    sqs = createSqsClient({ region: 'us-east-1', sqsEndpoint: sqsEmulator.endpoint });
    dataDir = tempDataDir();
  });
  afterAll(async () => {
    for (const child of children) await child.stop().catch(() => undefined);
    children[0]?.cleanup();
    sqs?.destroy();
    await sqsEmulator?.stop();
  });

  const start = async () => {
    const child = spawnLocal({ env: { SQS_ENDPOINT: sqsEmulator.endpoint }, dataDir });
    children.push(child);
    await child.ready(60_000);
    return child;
  };
  const depth = async (name: string) => {
    const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: name }));
    const { Attributes = {} } = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    return Number(Attributes.ApproximateNumberOfMessages) + Number(Attributes.ApproximateNumberOfMessagesNotVisible);
  };

  it(
    'after a restart all 500 are applied, once each, within 5 minutes',
    async () => {
      // The queues as `npm start` creates them (same names and attributes), filled before it starts.
      await ensureQueues(sqs, {
        events: 'ratchet-events',
        sesFeed: 'ratchet-ses-notifications',
        sesDeadLetters: 'ratchet-ses-dead-letters',
      });
      const signer = findDemoSigner('ses')!;
      // The runtime verifies against the demo credentials in its data directory: create them first.
      const credentials = ensureDemoCredentials(dataDir).ses!;
      const emails = Array.from({ length: MESSAGES }, (_, i) => `killed-${i}@example.com`);
      const { QueueUrl: feedUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: 'ratchet-ses-notifications' }));
      const startedAt = Date.now();
      for (let i = 0; i < MESSAGES; i += 10) {
        const entries = emails.slice(i, i + 10).map((email, j) => ({
          Id: String(j),
          MessageBody: signer.sign('hard_bounce', email, credentials, Date.now()).body,
        }));
        const sent = await sqs.send(new SendMessageBatchCommand({ QueueUrl: feedUrl, Entries: entries }));
        expect(sent.Failed ?? []).toEqual([]);
      }
      expect(await depth('ratchet-ses-notifications')).toBe(MESSAGES);

      // Ready means the feed's pollers are running. Kill it as soon as the first batches are done, so
      // others are in flight (received, not deleted) on the feed and on the events queue.
      const first = await start();
      for (
        const until = Date.now() + 10_000;
        Date.now() < until && (await depth('ratchet-ses-notifications')) === MESSAGES;
      ) {
        await new Promise((r) => setTimeout(r, 10));
      }
      first.child.kill('SIGKILL');
      expect(await first.exited()).toBe(-1);
      const pendingAfterKill = await depth('ratchet-ses-notifications');
      expect(pendingAfterKill).toBeGreaterThan(0);

      await start();
      const state = readState(dataDir)!;
      const doc = createDocumentClient({ region: 'us-east-1', dynamoEndpoint: state.dynamoEndpoint });
      const scanAll = async (table: string) => {
        const items: Record<string, any>[] = [];
        for await (const page of scanPages(doc, { TableName: table }, table)) items.push(...page);
        return items;
      };
      let records: Record<string, any>[] = [];
      while (Date.now() - startedAt < DEADLINE_MS) {
        records = (await scanAll(state.suppressionTable)).filter((r) => String(r.email).startsWith('killed-'));
        if (
          records.length === MESSAGES &&
          (await depth('ratchet-ses-notifications')) === 0 &&
          (await depth('ratchet-events')) === 0
        )
          break;
        await new Promise((r) => setTimeout(r, 1000));
      }
      const elapsedMs = Date.now() - startedAt;
      try {
        expect(records.map((r) => r.email).sort()).toEqual([...emails].sort());
        expect(elapsedMs).toBeLessThan(DEADLINE_MS);
        // Once each: one piece of evidence per address, one inbox row per message, nothing dead-lettered.
        expect(records.every((r) => r.status === 'suppressed' && Object.keys(r.evidence).length === 1)).toBe(true);
        const rows = (await scanAll(state.inboxTable)).filter((row) => String(row.pk).startsWith('ses#'));
        expect(rows).toHaveLength(MESSAGES);
        expect(await depth('ratchet-ses-dead-letters')).toBe(0);
        expect(await depth('ratchet-events-dlq')).toBe(0);
      } finally {
        doc.destroy();
      }
    },
    DEADLINE_MS + 90_000,
  );
});
