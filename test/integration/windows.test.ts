/**
 * Signature windows sized to each sender's retry horizon, on the real emulators: a retry that arrives
 * hours after our 503 is admitted, a replay inside the window is a 200 duplicate with one effect, and
 * a sender that re-signs every attempt still gets ±5 minutes. The edge runs on an advanced clock
 * (the consumer does not need one); the first delivery's 503 comes from a store fault injected into
 * the real SDK client, since dynalite cannot fail on cue.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sampleMailgunEventData, signMailgun } from '../../lib/demo/mailgun.js';
import { sampleSendgridEvent, sendgridBatchBody, signSendgridBody } from '../../lib/demo/sendgrid.js';
import { demoSigningCertUrl, sesDemoPayload, signSnsMessage, snsHttpRequest } from '../../lib/demo/ses.js';
import { type DemoCredentialSet, ensureDemoCredentials } from '../../lib/local/demo-credentials.js';
import { startLocalRuntime } from '../../lib/local/runtime.js';
import { captureLog, injectFault, startTestStack, type TestStack } from './harness.js';

const HOUR = 3_600_000;

describe('signature windows and replays', () => {
  let stack: TestStack;
  let demo: DemoCredentialSet;
  let aheadMs = 0;
  const T0 = Date.now();

  beforeAll(async () => {
    stack = await startTestStack({ edge: { now: () => Date.now() + aheadMs } });
    demo = ensureDemoCredentials(stack.dataDir);
  });
  afterAll(() => stack?.stop());
  beforeEach(() => {
    aheadMs = 0;
  });

  /** The first delivery gets a 503: the inbox put of this provider's event rows fails once. */
  const failOnce = (provider: string) =>
    injectFault(stack.clients.doc, {
      command: 'PutItemCommand',
      times: 1,
      when: (input) =>
        input.TableName === stack.config.inboxTable && String(input.Item?.pk ?? '').startsWith(`${provider}#`),
    });
  const rowsFor = async (email: string) => (await stack.inboxRows()).filter((row) => row.event.recipient === email);
  const evidenceOf = async (email: string) => Object.keys((await stack.record(email))?.evidence ?? {});

  it('Mailgun: the identical signed body 2 h after a 503 is admitted; a second replay is a 200 duplicate; one effect', async () => {
    const email = 'mailgun-retry@example.com';
    const signature = signMailgun(demo.mailgun!.signingSecret, T0);
    const body = JSON.stringify({ signature, 'event-data': sampleMailgunEventData('hard_bounce', email, T0) });
    const request = { headers: { 'content-type': 'application/json' }, body };

    const fault = failOnce('mailgun');
    expect((await stack.post('mailgun', request)).status).toBe(503);
    fault.remove();
    expect(fault.hits).toBe(1);

    aheadMs = 2 * HOUR; // Mailgun's 5th retry comes about 1.5 h after the first attempt, its last about 8 h
    expect(await stack.post('mailgun', request)).toMatchObject({ status: 200, body: { received: 1 } });
    const replay = await stack.post('mailgun', request);
    expect(replay).toMatchObject({ status: 200, body: { admitted: 0, duplicates: 1 } });

    // The same token under a different body is still a replay, even though the window is open.
    const forged = JSON.stringify({
      signature,
      'event-data': sampleMailgunEventData('hard_bounce', 'victim@example.com', T0),
    });
    expect((await stack.post('mailgun', { headers: request.headers, body: forged })).status).toBe(409);

    await stack.drain();
    expect(await rowsFor(email)).toHaveLength(1);
    expect(await rowsFor('victim@example.com')).toHaveLength(0);
    expect(await stack.record(email)).toMatchObject({ status: 'suppressed', reason: 'hard_bounce' });
    expect(await evidenceOf(email)).toHaveLength(1);
    expect(await stack.record('victim@example.com')).toBeUndefined();
  });

  it('Mailgun: past the 9 h window the same body is 401, and nothing is written', async () => {
    const email = 'mailgun-late@example.com';
    const body = JSON.stringify({
      signature: signMailgun(demo.mailgun!.signingSecret, T0),
      'event-data': sampleMailgunEventData('complaint', email, T0),
    });
    aheadMs = 9 * HOUR + 60_000;
    expect(await stack.post('mailgun', { headers: { 'content-type': 'application/json' }, body })).toMatchObject({
      status: 401,
      body: { error: 'stale_request' },
    });
    expect(await rowsFor(email)).toHaveLength(0);
  });

  it('SendGrid: the identical batch 20 h after a 503 is admitted; a second replay is a 200 duplicate; one effect each', async () => {
    const bounced = 'sendgrid-bounced@example.com';
    const complained = 'sendgrid-complained@example.com';
    const delivered = 'sendgrid-delivered@example.com';
    const body = sendgridBatchBody([
      sampleSendgridEvent('hard_bounce', bounced, T0),
      sampleSendgridEvent('complaint', complained, T0),
      sampleSendgridEvent('delivered', delivered, T0),
    ]);
    const request = {
      headers: signSendgridBody(body, String(Math.floor(T0 / 1000)), demo.sendgrid!.signingSecret),
      body,
    };

    const fault = failOnce('sendgrid');
    expect((await stack.post('sendgrid', request)).status).toBe(503);
    fault.remove();
    expect(fault.hits).toBe(1);

    aheadMs = 20 * HOUR;
    expect(await stack.post('sendgrid', request)).toMatchObject({ status: 200, body: { received: 3 } });
    const replay = await stack.post('sendgrid', request);
    expect(replay).toMatchObject({ status: 200, body: { received: 3, admitted: 0, duplicates: 3 } });

    await stack.drain();
    for (const email of [bounced, complained, delivered]) expect(await rowsFor(email)).toHaveLength(1);
    expect(await stack.record(bounced)).toMatchObject({ status: 'suppressed', reason: 'hard_bounce' });
    expect(await stack.record(complained)).toMatchObject({ status: 'suppressed', reason: 'complaint' });
    expect(await evidenceOf(bounced)).toHaveLength(1);
    expect(await evidenceOf(complained)).toHaveLength(1);
    // A delivery to an address with no record changes nothing sending code reads, so nothing is written.
    expect(await stack.record(delivered)).toBeUndefined();
  });

  it('SendGrid: past the 25 h window the batch is 401', async () => {
    const email = 'sendgrid-late@example.com';
    const body = sendgridBatchBody([sampleSendgridEvent('hard_bounce', email, T0)]);
    aheadMs = 25 * HOUR + 60_000;
    const response = await stack.post('sendgrid', {
      headers: signSendgridBody(body, String(Math.floor(T0 / 1000)), demo.sendgrid!.signingSecret),
      body,
    });
    expect(response).toMatchObject({ status: 401, body: { error: 'stale_request' } });
    expect(await rowsFor(email)).toHaveLength(0);
  });

  it('Standard Webhooks: a request signed 10 minutes ago is still 401 (the sender re-signs every attempt)', async () => {
    const email = 'standard-stale@example.com';
    const response = await stack.post(
      'standard',
      stack.sign('standard', 'hard_bounce', email, Date.now() - 10 * 60_000),
    );
    expect(response).toMatchObject({ status: 401, body: { error: 'stale_request' } });
    expect(await rowsFor(email)).toHaveLength(0);
    // The same event signed now, as the sender's next attempt would be, is accepted.
    expect((await stack.post('standard', stack.sign('standard', 'hard_bounce', email))).status).toBe(200);
  });

  it('SES: a bounce with one garbage address among three recipients answers 200 and suppresses the two valid ones', async () => {
    const ses = demo.ses!;
    const [one, two] = ['ses-one@example.com', 'ses-two@example.com'];
    const payload = sesDemoPayload('hard_bounce', one, T0) as { bounce: { bouncedRecipients: unknown[] } };
    payload.bounce.bouncedRecipients = [
      { emailAddress: one, action: 'failed', status: '5.1.1', diagnosticCode: 'smtp; 550 5.1.1 user unknown' },
      { emailAddress: 'not an address <at> all', action: 'failed', status: '5.1.1' },
      { emailAddress: two, action: 'failed', status: '5.1.1', diagnosticCode: 'smtp; 550 5.1.1 user unknown' },
    ];
    const message = signSnsMessage(
      {
        Type: 'Notification',
        MessageId: randomUUID(),
        TopicArn: ses.credential,
        Message: JSON.stringify(payload),
        Timestamp: new Date(T0).toISOString(),
        SigningCertURL: demoSigningCertUrl(ses.credential, ses.pinnedCertificate!.fileName),
      },
      ses.signingSecret,
    );
    const response = await stack.post('ses', snsHttpRequest(message));
    expect(response).toMatchObject({ status: 200, body: { received: 3, admitted: 2, ignored: 1 } });

    await stack.drain();
    expect(await stack.record(one)).toMatchObject({ status: 'suppressed', reason: 'hard_bounce' });
    expect(await stack.record(two)).toMatchObject({ status: 'suppressed', reason: 'hard_bounce' });
    const accepted = stack.log.lines.find(
      (line) => line.message === 'webhook accepted' && line.fields?.provider === 'ses',
    );
    expect(accepted?.fields?.ignoredReasons).toEqual({ 'recipient is not an email address': 1 });
  });

  it('SES: an authentic notification whose Message is not SES JSON is acknowledged (200, ignored, logged), not 400', async () => {
    const ses = demo.ses!;
    const message = signSnsMessage(
      {
        Type: 'Notification',
        MessageId: randomUUID(),
        TopicArn: ses.credential,
        Message: 'this is not JSON',
        Timestamp: new Date(T0).toISOString(),
        SigningCertURL: demoSigningCertUrl(ses.credential, ses.pinnedCertificate!.fileName),
      },
      ses.signingSecret,
    );
    const before = (await stack.inboxRows()).length;
    expect(await stack.post('ses', snsHttpRequest(message))).toMatchObject({
      status: 200,
      body: { received: 1, admitted: 0, ignored: 1 },
    });
    expect((await stack.inboxRows()).length).toBe(before);
    const logged = stack.log.lines.filter(
      (line) => line.message === 'webhook accepted' && line.fields?.provider === 'ses',
    );
    expect(logged.at(-1)?.fields?.ignoredReasons).toEqual({
      'unreadable SES message: SNS Message is not valid JSON': 1,
    });
  });
});

describe('npm start and the inbox TTL', () => {
  it('refuses to start when INBOX_TTL_DAYS is shorter than a signature window, naming the variables', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ratchet-ttl-'));
    try {
      const start = startLocalRuntime({
        env: { AWS_REGION: 'us-east-1', INBOX_TTL_DAYS: '2', MAILGUN_TOLERANCE_SECONDS: '172800' },
        dataDir,
        port: 0,
        persist: false,
        background: false,
        writeStateFile: false,
        log: captureLog(),
      });
      await expect(start).rejects.toThrow(
        /INBOX_TTL_DAYS \(context inboxTtlDays\) is 2 days.*mailgun \(MAILGUN_TOLERANCE_SECONDS: 48\.08 h\)/,
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
