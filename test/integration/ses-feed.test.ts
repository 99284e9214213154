/**
 * The SES feed on the real emulators: envelopes put on the local feed queue as SNS puts them (raw
 * message delivery off), drained by the same feed code the Lambda runs. Authentic messages are applied
 * exactly once; anything that can never be admitted lands in the SES dead-letter queue on its first
 * receive and changes nothing; a DynamoDB fault fails exactly its own message, which SQS delivers again.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqsDeadLetters } from '../../lambdas/adapters/sqs-dead-letters.js';
import { buildSesFeed } from '../../lambdas/adapters/wiring/ses-feed.js';
import { createSesFeedHandler } from '../../lambdas/handlers/ses-feed-handler.js';
import { sendCommand } from '../../lib/cli/send.js';
import { SES_FEED } from '../../lib/definitions.js';
import { demoSigningCertUrl, sesDemoPayload, signSnsMessage } from '../../lib/demo/ses.js';
import { QueuePoller } from '../../lib/local/poller.js';
import { clearState, writeState } from '../../lib/local/state.js';
import { sesEnvelopeInboxKey } from '../support/ses-inbox-key.js';
import { injectFault, startTestStack, type TestStack } from './harness.js';

const HOUR_MS = 60 * 60 * 1000;
const FOREIGN_TOPIC = 'arn:aws:sns:us-east-1:000000000000:someone-else';

describe('the SES feed', () => {
  let stack: TestStack;
  const confirmed: Array<[string, string]> = [];
  beforeAll(async () => {
    stack = await startTestStack({
      edge: { confirmer: { confirm: async (topicArn, token) => void confirmed.push([topicArn, token]) } },
    });
  });
  afterAll(() => stack?.stop());

  const count = (name: string) => stack.counters.totals.get(`${name}{provider=ses}`) ?? 0;
  const envelope = (kind: 'hard_bounce' | 'complaint', email: string, nowMs = Date.now()) =>
    stack.sign('ses', kind, email, nowMs).body;
  const deadLetters = () => new SqsDeadLetters(stack.clients.sqs, stack.queues.sesDeadLetterUrl);
  const rowsFor = async (email: string) =>
    (await stack.inboxRows()).filter((row) => row.events.some((e: { recipient: string }) => e.recipient === email));
  async function emptyDeadLetters() {
    const queue = deadLetters();
    // Short polls: fauxqs answers one from every message (only AWS samples), and an empty end costs nothing.
    for (let batch = await queue.receive(5, 0); batch.length > 0; batch = await queue.receive(5, 0))
      for (const m of batch) await queue.delete(m);
  }

  it('creates the feed with a redrive policy to the SES dead-letter queue', async () => {
    expect(stack.queues.sesQueueUrl).toMatch(/ratchet-ses-notifications$/);
    expect(stack.queues.sesDeadLetterUrl).toMatch(/ratchet-ses-dead-letters$/);
    const { GetQueueAttributesCommand } = await import('@aws-sdk/client-sqs');
    const attrs = await stack.clients.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: stack.queues.sesQueueUrl, AttributeNames: ['All'] }),
    );
    expect(JSON.parse(attrs.Attributes!.RedrivePolicy!)).toEqual({
      deadLetterTargetArn: stack.queues.sesDeadLetterArn,
      maxReceiveCount: SES_FEED.maxReceiveCount,
    });
    expect(attrs.Attributes!.MessageRetentionPeriod).toBe(String(SES_FEED.retentionDays * 86_400));
  });

  it('an envelope put on the feed as SNS would is applied exactly once; the same envelope twice makes one inbox row', async () => {
    const email = 'feed-once@example.com';
    const body = envelope('hard_bounce', email);
    await stack.sendToFeed(body);
    expect(await stack.drainFeed()).toBe(1);
    expect(await stack.drain()).toBe(1);
    const record = await stack.record(email);
    expect(record).toMatchObject({ status: 'suppressed', reason: 'hard_bounce' });
    expect(Object.keys(record!.evidence)).toHaveLength(1);

    // SNS delivers at least once, and a redrive replays: the same envelope twice more, in one batch.
    await stack.sendToFeed(body, body);
    expect(await stack.drainFeed()).toBe(2);
    await stack.drain();
    expect(await rowsFor(email)).toHaveLength(1);
    const { version: _v, updatedAt: _u, ...after } = (await stack.record(email))!;
    const { version: _v2, updatedAt: _u2, ...before } = record!;
    expect(after).toEqual(before);
    expect(await stack.feedDepth()).toEqual({ visible: 0, inFlight: 0, dlq: 0 });
    expect(count('EventsDuplicate')).toBeGreaterThanOrEqual(2);
  });

  it('an envelope signed 6 hours ago is admitted through the queue and over HTTPS', async () => {
    const sixHoursAgo = Date.now() - 6 * HOUR_MS;
    await stack.sendToFeed(envelope('complaint', 'feed-late@example.com', sixHoursAgo));
    const https = await stack.post('ses', stack.sign('ses', 'complaint', 'https-late@example.com', sixHoursAgo));
    expect(https).toMatchObject({ status: 200, body: { admitted: 1 } });
    await stack.drainFeed();
    await stack.drain();
    expect(await stack.record('feed-late@example.com')).toMatchObject({ status: 'suppressed', reason: 'complaint' });
    expect(await stack.record('https-late@example.com')).toMatchObject({ status: 'suppressed', reason: 'complaint' });
    expect((await stack.feedDepth()).dlq).toBe(0);
  });

  it('a replay of a 20-day-old message is a 200 duplicate, over HTTPS and through the queue; one row, one effect', async () => {
    const email = 'feed-old-replay@example.com';
    const old = stack.sign('ses', 'hard_bounce', email, Date.now() - 20 * 24 * HOUR_MS);
    expect(await stack.post('ses', old)).toMatchObject({ status: 200, body: { admitted: 1, duplicates: 0 } });
    expect(await stack.post('ses', old)).toMatchObject({ status: 200, body: { admitted: 0, duplicates: 1 } });
    const before = count('EventsDuplicate');
    await stack.sendToFeed(old.body);
    await stack.drainFeed();
    expect(count('EventsDuplicate') - before).toBe(1);
    await stack.drain();
    expect(await rowsFor(email)).toHaveLength(1);
    expect(Object.keys((await stack.record(email))!.evidence)).toHaveLength(1);
    expect((await stack.feedDepth()).dlq).toBe(0);
  });

  it('a tampered envelope, one signed for a topic off the allowlist, and a raw SES payload land in the dead-letter queue on their first receive and change nothing', async () => {
    const tampered = envelope('complaint', 'feed-tampered@example.com').replace(
      'feed-tampered@example.com',
      'feed-victim@example.com',
    );
    const ses = stack.demo.ses!;
    const foreign = JSON.stringify(
      signSnsMessage(
        {
          Type: 'Notification',
          MessageId: randomUUID(),
          TopicArn: FOREIGN_TOPIC,
          Message: JSON.stringify(sesDemoPayload('hard_bounce', 'feed-foreign@example.com', Date.now())),
          Timestamp: new Date().toISOString(),
          SigningCertURL: demoSigningCertUrl(FOREIGN_TOPIC, ses.pinnedCertificate!.fileName),
        },
        ses.signingSecret,
      ),
    );
    const raw = JSON.stringify(sesDemoPayload('hard_bounce', 'feed-raw@example.com', Date.now()));
    const before = count('SesFeedDeadLettered');
    const ids = await stack.sendToFeed(tampered, foreign, raw);
    expect(await stack.drainFeed()).toBe(3);
    expect(await stack.drain()).toBe(0);

    const moved = await deadLetters().receive(5);
    expect(moved.map((m) => m.body).sort()).toEqual([tampered, foreign, raw].sort());
    const codeOf = (body: string) => moved.find((m) => m.body === body)!.attributes;
    expect(codeOf(tampered)).toEqual({ error: 'authentication_failed', source: 'ses-feed' });
    expect(codeOf(foreign)).toEqual({ error: 'forbidden_sender', source: 'ses-feed' });
    expect(codeOf(raw)).toEqual({ error: 'malformed_request', source: 'ses-feed' });
    // First receive: each was received once on the feed, then moved (a fresh message in the DLQ).
    expect(moved.every((m) => m.receiveCount === 1)).toBe(true);
    expect(count('SesFeedDeadLettered') - before).toBe(3);
    for (const email of [
      'feed-tampered@example.com',
      'feed-victim@example.com',
      'feed-foreign@example.com',
      'feed-raw@example.com',
    ]) {
      expect(await rowsFor(email)).toEqual([]);
      expect(await stack.record(email)).toBeUndefined();
    }
    expect(await stack.feedDepth()).toMatchObject({ visible: 0, inFlight: 0 });
    // One log line per message: its SQS id and the code, never the body, a signature or an address.
    const lines = stack.log.lines.filter((l) => l.message.startsWith('SES feed message dead-lettered'));
    expect(lines.map((l) => l.fields!.messageId).sort()).toEqual([...ids].sort());
    const logged = JSON.stringify(lines);
    expect(logged).not.toMatch(/@example\.com|Signature|"Message"/);
    for (const m of moved) await deadLetters().delete(m);
  });

  it('a batch of 10 with one DynamoDB fault reports exactly that message as failed, and it is applied when delivered again', async () => {
    const emails = Array.from({ length: 10 }, (_, i) => `feed-batch-${i}@example.com`);
    const bodies = emails.map((email) => envelope('hard_bounce', email));
    const victim = sesEnvelopeInboxKey(bodies[4]!)!;
    const sent = await stack.clients.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: stack.queues.sesQueueUrl,
        Entries: bodies.map((body, i) => ({ Id: String(i), MessageBody: body })),
      }),
    );
    const sqsIds = new Map(sent.Successful!.map((s) => [Number(s.Id), s.MessageId!]));
    const fault = injectFault(stack.clients.doc, {
      command: 'PutItemCommand',
      times: 1,
      when: (input) => input.TableName === stack.config.inboxTable && String(input.Item?.pk ?? '') === victim,
    });
    // The real feed handler, with its answers recorded, on a poller of its own over the same queue.
    const handler = createSesFeedHandler(
      buildSesFeed(stack.config, stack.clients, {
        deadLetterQueueUrl: stack.queues.sesDeadLetterUrl,
        edge: { log: stack.log, counters: stack.counters },
      }),
    );
    const responses: SQSBatchResponse[] = [];
    const poller = new QueuePoller({
      client: stack.clients.sqs,
      queueUrl: stack.queues.sesQueueUrl,
      deadLetterUrl: stack.queues.sesDeadLetterUrl,
      deadLetterArn: stack.queues.sesDeadLetterArn,
      handler: async (event) => {
        const response = await handler(event);
        responses.push(response);
        return response;
      },
      batchSize: SES_FEED.batchSize,
      maxReceiveCount: SES_FEED.maxReceiveCount,
      retryDelaySeconds: 0,
      region: 'us-east-1',
    });
    try {
      const logFrom = stack.log.lines.length;
      expect(await poller.pollOnce(0)).toBe(10);
      expect(fault.hits).toBe(1);
      // One INFO summary for the batch, a line for the failure, none per admitted envelope.
      const batchLines = stack.log.lines.slice(logFrom);
      expect(batchLines.filter((l) => l.message === 'SES feed batch')).toEqual([
        {
          level: 'info',
          message: 'SES feed batch',
          fields: { messages: 10, events: 9, admitted: 9, duplicates: 0, ignored: 0, deadLettered: 0, failed: 1 },
        },
      ]);
      expect(batchLines.filter((l) => l.level === 'info').map((l) => l.message)).toEqual(['SES feed batch']);
      expect(responses[0]).toEqual({ batchItemFailures: [{ itemIdentifier: sqsIds.get(4) }] });
      // The failure line names the SQS message and the code, nothing else from the message.
      expect(stack.log.lines).toContainEqual(
        expect.objectContaining({
          message: 'SES feed message failed; SQS will deliver it again',
          fields: { messageId: sqsIds.get(4), status: 503, code: 'transient_failure' },
        }),
      );
      await stack.drain();
      expect(await stack.record(emails[4]!)).toMatchObject({ status: 'suppressed' });
      expect(await rowsFor(emails[4]!)).toEqual([]);

      // Delivered again (the failure was made visible at once): this time it is admitted.
      expect(await poller.pollOnce(0)).toBe(1);
      expect(responses[1]).toEqual({ batchItemFailures: [] });
    } finally {
      fault.remove();
    }
    await stack.drain();
    for (const email of emails) {
      expect(await rowsFor(email)).toHaveLength(1);
      expect(Object.keys((await stack.record(email))!.evidence)).toHaveLength(1);
    }
    expect(await stack.feedDepth()).toEqual({ visible: 0, inFlight: 0, dlq: 0 });
  });

  it('a message whose move to the dead-letter queue fails is a batch item failure, never dropped', async () => {
    const tampered = envelope('complaint', 'feed-unmoved@example.com').replace(
      '"Type":"Notification"',
      '"Type":"Notification","Subject":"x"',
    );
    const fault = injectFault(stack.clients.sqs, {
      command: 'SendMessageBatchCommand',
      times: 1,
      when: (input) => input.QueueUrl === stack.queues.sesDeadLetterUrl,
    });
    try {
      await stack.sendToFeed(tampered);
      expect(await stack.sesFeed.pollOnce(0)).toBe(1);
      expect(fault.hits).toBe(1);
      expect(await stack.feedDepth()).toMatchObject({ dlq: 0 });
      expect(stack.log.lines).toContainEqual(
        expect.objectContaining({ message: 'SES feed dead-letter move failed; SQS will deliver it again' }),
      );
      // Delivered again, it is moved this time.
      await stack.drainFeed();
      expect(await stack.feedDepth()).toEqual({ visible: 0, inFlight: 0, dlq: 1 });
    } finally {
      fault.remove();
      await emptyDeadLetters();
    }
  });

  it('a SubscriptionConfirmation through the queue is confirmed once, as over HTTPS', async () => {
    const ses = stack.demo.ses!;
    const token = `token-${randomUUID()}`;
    const confirmation = JSON.stringify(
      signSnsMessage(
        {
          Type: 'SubscriptionConfirmation',
          MessageId: randomUUID(),
          Token: token,
          TopicArn: ses.credential,
          Message: `You have chosen to subscribe to the topic ${ses.credential}.`,
          SubscribeURL: `https://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription&TopicArn=${ses.credential}&Token=${token}`,
          Timestamp: new Date().toISOString(),
          SigningCertURL: demoSigningCertUrl(ses.credential, ses.pinnedCertificate!.fileName),
        },
        ses.signingSecret,
      ),
    );
    await stack.sendToFeed(confirmation, confirmation);
    await stack.drainFeed();
    expect(confirmed.filter(([, t]) => t === token)).toEqual([[ses.credential, token]]);
    expect(await stack.feedDepth()).toEqual({ visible: 0, inFlight: 0, dlq: 0 });
    // Same ledger as over HTTPS: the route now says it is already confirmed.
    const https = await stack.post('ses', {
      headers: { 'x-amz-sns-message-type': 'SubscriptionConfirmation' },
      body: confirmation,
    });
    expect(https).toMatchObject({ status: 200, body: { alreadyConfirmed: true } });
  });

  describe('npm run send -- ses <kind> <email> --via queue', () => {
    let http: Server;
    let requests = 0;
    let port: number;
    beforeAll(async () => {
      // Where a plain `send` would POST: it must see nothing.
      http = createServer((_req, res) => (requests++, res.end('{}')));
      await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
      port = (http.address() as AddressInfo).port;
    });
    afterAll(() => new Promise<void>((resolve) => http.close(() => resolve())));

    async function send(env: Record<string, string>, ...argv: string[]) {
      const out: string[] = [];
      const err: string[] = [];
      const code = await sendCommand(
        argv,
        { RATCHET_DATA_DIR: stack.dataDir, PORT: String(port), AWS_REGION: 'us-east-1', ...env },
        {
          out: (l) => out.push(l),
          err: (l) => err.push(l),
          progressTty: false,
        },
      );
      return { code, out: out.join('\n'), err: err.join('\n') };
    }

    it('with SQS_ENDPOINT (and the default SES_QUEUE_NAME): puts a signed envelope on the feed, which applies it', async () => {
      const result = await send(
        { SQS_ENDPOINT: stack.config.sqsEndpoint! },
        'ses',
        'bounce',
        'via-queue@example.com',
        '--via',
        'queue',
      );
      expect(result).toMatchObject({ code: 0, err: '' });
      const match = /^SQS (\S+) ← message (\S+): SNS MessageId (\S+), inbox key (ses#c1\.\S+)$/.exec(result.out);
      expect(match?.[1]).toBe(stack.queues.sesQueueUrl);
      expect(requests).toBe(0);
      expect(await stack.drainFeed()).toBe(1);
      await stack.drain();
      expect(await stack.record('via-queue@example.com')).toMatchObject({
        status: 'suppressed',
        reason: 'hard_bounce',
      });
      expect((await rowsFor('via-queue@example.com')).map((row) => row.pk)).toEqual([match![4]]);
    });

    it("with only the running stack's .data/local.json", async () => {
      writeState(stack.dataDir, stack.localState());
      try {
        const result = await send({}, 'ses', 'complaint', 'via-state@example.com', '--via', 'queue');
        expect(result.code).toBe(0);
        expect(result.out).toContain(`SQS ${stack.queues.sesQueueUrl} ← message `);
        await stack.drainFeed();
        await stack.drain();
        expect(await stack.record('via-state@example.com')).toMatchObject({
          status: 'suppressed',
          reason: 'complaint',
        });
      } finally {
        clearState(stack.dataDir);
      }
      expect(requests).toBe(0);
    });

    it('says what to do when there is no feed to find, and refuses --via queue for other providers', async () => {
      const none = await send({}, 'ses', 'bounce', 'nowhere@example.com', '--via', 'queue');
      expect(none.code).toBe(1);
      expect(none.err).toMatch(
        /^error: no local stack \(.+local\.json not found\): start it with `npm start`, or set SQS_ENDPOINT \(and SES_QUEUE_NAME\)$/,
      );
      const missing = await send(
        { SQS_ENDPOINT: stack.config.sqsEndpoint!, SES_QUEUE_NAME: 'no-such-feed' },
        'ses',
        'bounce',
        'nowhere@example.com',
        '--via',
        'queue',
      );
      expect(missing.code).toBe(1);
      expect(missing.err).toMatch(/^error: could not put the envelope on no-such-feed at SQS_ENDPOINT /);
      const other = await send({}, 'mailgun', 'bounce', 'nowhere@example.com', '--via', 'queue');
      expect(other).toMatchObject({
        code: 2,
        err: 'error: --via queue is for ses only (the SES feed); mailgun is sent over HTTP',
      });
      expect(requests).toBe(0);
    });
  });
});
