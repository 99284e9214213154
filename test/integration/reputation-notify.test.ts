/**
 * The reputation notifier on fauxqs's SNS: one publish per change of state, its subject and text naming
 * the sender, its rates and the threshold crossed, its attributes (state, sender, provider) there for
 * subscription filter policies. A queue subscribed to the topic (raw delivery off) receives what an
 * operator's email would carry. Then the evaluator end to end on dynalite: a sender's counts turn it to
 * breach, announced once on the topic; a second run with nothing new announces nothing.
 */

import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateTopicCommand, SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient, createSqsClient } from '../../lambdas/adapters/aws-clients.js';
import { SnsReputationNotifier } from '../../lambdas/adapters/sns-reputation.js';
import { configFromEnv } from '../../lambdas/adapters/wiring/config.js';
import { buildReputationEvaluator } from '../../lambdas/adapters/wiring/reputation.js';
import { TransientError } from '../../lambdas/core/errors.js';
import { evaluateReputation, type StateChange } from '../../lambdas/core/reputation/evaluate.js';
import {
  crossedThreshold,
  DEFAULT_THRESHOLDS,
  HOUR_MS,
  rates,
  STATE_WINDOW,
} from '../../lambdas/core/reputation/index.js';
import { ensureReputationTable } from '../../lib/local/bootstrap.js';
import { type Emulator, startDynamo, startSqs } from '../../lib/local/emulators.js';
import { seedTallies } from '../support/reputation-seed.js';
import { captureLog } from './harness.js';

const REGION = 'us-east-1';
const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };
const TABLE = 'notify-test-reputation';

interface Received {
  subject: string | null;
  message: string;
  attributes: Record<string, { Type: string; Value: string }>;
}

describe('reputation notifications on fauxqs SNS', () => {
  let fauxqs: Emulator;
  let dynamo: Emulator;
  let sns: SNSClient;
  let sqs: SQSClient;
  let topicArn: string;
  let queueUrl: string;

  beforeAll(async () => {
    [fauxqs, dynamo] = await Promise.all([startSqs(), startDynamo()]);
    sns = new SNSClient({ region: REGION, endpoint: fauxqs.endpoint, credentials: LOCAL_CREDENTIALS });
    sqs = createSqsClient({ region: REGION, sqsEndpoint: fauxqs.endpoint });
    topicArn = (await sns.send(new CreateTopicCommand({ Name: 'ratchet-reputation' }))).TopicArn!;
    queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: 'reputation-inbox' }))).QueueUrl!;
    const queueArn = (
      await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }))
    ).Attributes!.QueueArn!;
    await sns.send(new SubscribeCommand({ TopicArn: topicArn, Protocol: 'sqs', Endpoint: queueArn }));
  }, 60_000);
  afterAll(async () => {
    sns?.destroy();
    sqs?.destroy();
    await Promise.all([fauxqs?.stop(), dynamo?.stop()]);
  });

  /** Everything on the subscribed queue now, deleted as read, unwrapped from the SNS envelope. */
  const receiveAll = async (): Promise<Received[]> => {
    const received: Received[] = [];
    for (;;) {
      const batch = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
      );
      const messages = batch.Messages ?? [];
      if (messages.length === 0) return received;
      for (const m of messages) {
        const envelope = JSON.parse(m.Body!);
        expect(envelope).toMatchObject({ Type: 'Notification', TopicArn: topicArn });
        received.push({
          subject: envelope.Subject,
          message: envelope.Message,
          attributes: envelope.MessageAttributes ?? {},
        });
        await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: m.ReceiptHandle! }));
      }
    }
  };

  const breachChange = (): StateChange => {
    // 1,000 delivered, 50 hard bounces, 1 complaint: 1,051 attempts, 4.76 % bounces, 0.10 % complaints.
    const r = rates({ delivered: 1000, hardBounced: 50, softBounced: 0, complained: 1 });
    return {
      provider: 'ses',
      sender: 'news.example.com',
      previous: 'warn',
      state: 'breach',
      window: STATE_WINDOW,
      ...r,
      threshold: crossedThreshold('breach', r, DEFAULT_THRESHOLDS),
      thresholds: DEFAULT_THRESHOLDS,
    };
  };

  it('publishes one message naming the sender, its rates and the threshold, with state/sender/provider attributes', async () => {
    const change = breachChange();
    expect(change.threshold).toMatch(/^breach: /);
    await new SnsReputationNotifier(sns, topicArn).notify(change);

    const received = await receiveAll();
    expect(received).toHaveLength(1);
    const [m] = received;
    expect(m!.subject).toBe('Ratchet: sender news.example.com (ses) is now breach');
    expect(m!.message).toContain('Sender news.example.com through ses went from warn to breach.');
    expect(m!.message).toContain('1051 attempts');
    expect(m!.message).toContain(`hard-bounce rate ${((50 / 1051) * 100).toFixed(2)} %`); // 4.76 %
    expect(m!.message).toContain(`complaint rate ${((1 / 1051) * 100).toFixed(2)} %`); // 0.10 %
    expect(m!.message).toContain(`Threshold: ${change.threshold}.`);
    expect(m!.attributes).toEqual({
      state: { Type: 'String', Value: 'breach' },
      sender: { Type: 'String', Value: 'news.example.com' },
      provider: { Type: 'String', Value: 'ses' },
    });
  });

  it('a topic that does not exist: notify rejects with a TransientError, and nothing arrives', async () => {
    const missing = topicArn.replace(/ratchet-reputation$/, 'no-such-topic');
    expect(missing).not.toBe(topicArn);
    const failure = await new SnsReputationNotifier(sns, missing).notify(breachChange()).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(TransientError);
    expect((failure as TransientError).cause).toMatchObject({ name: 'NotFoundException' });
    expect(await receiveAll()).toEqual([]);
  });

  it('the evaluator on dynalite: one notification per change of state, none when a second run changes nothing', async () => {
    const raw = new DynamoDBClient({ region: REGION, endpoint: dynamo.endpoint, credentials: LOCAL_CREDENTIALS });
    await ensureReputationTable(raw, TABLE);
    raw.destroy();
    const config = configFromEnv({
      AWS_REGION: REGION,
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      REPUTATION_TABLE: TABLE,
      REPUTATION_TOPIC_ARN: topicArn,
    });
    const doc = createDocumentClient(config);
    try {
      const now = Date.now();
      const hourMs = Math.floor(now / HOUR_MS) * HOUR_MS;
      await seedTallies(doc, TABLE, [
        {
          provider: 'generic',
          sender: 'promo.example.com',
          hourMs,
          delivered: 1000,
          hardBounced: 50,
          softBounced: 0,
          complained: 0,
        },
        {
          provider: 'generic',
          sender: 'fine.example.com',
          hourMs,
          delivered: 1000,
          hardBounced: 1,
          softBounced: 0,
          complained: 0,
        },
      ]);
      const log = captureLog();
      // The real wiring: the topic ARN from the settings selects the SNS notifier, here on fauxqs.
      const deps = buildReputationEvaluator(config, { doc }, { sns, log, publish: () => undefined, now: () => now });

      const first = await evaluateReputation(deps);
      expect(first.changes).toEqual([
        expect.objectContaining({ sender: 'promo.example.com', previous: 'ok', state: 'breach', attempts: 1050 }),
      ]);
      const received = await receiveAll();
      expect(received).toHaveLength(1);
      expect(received[0]!.subject).toBe('Ratchet: sender promo.example.com (generic) is now breach');
      expect(received[0]!.message).toContain('hard-bounce rate 4.76 %');
      expect(received[0]!.message).toContain('Threshold: breach: hard bounces ≥ 4 %.');
      expect(received[0]!.attributes.state).toEqual({ Type: 'String', Value: 'breach' });

      const second = await evaluateReputation(deps);
      expect([second.evaluated, second.breach, second.changes]).toEqual([2, 1, []]);
      expect(await receiveAll()).toEqual([]);
    } finally {
      doc.destroy();
    }
  });
});
