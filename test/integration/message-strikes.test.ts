/**
 * Counting messages, over HTTP on the emulators, with genuine payload shapes:
 * - Symfony's Mailgun temporary failure, as five attempts of one message and as three messages;
 * - SendGrid's documented event examples as one batch, re-sent with every sg_event_id changed;
 * - an AWS example SES bounce notification published twice under two SNS MessageIds.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signMailgun } from '../../lib/demo/mailgun.js';
import { sendgridBatchBody, signSendgridBody } from '../../lib/demo/sendgrid.js';
import { demoSigningCertUrl, signSnsMessage, snsHttpRequest } from '../../lib/demo/ses.js';
import { startTestStack, type TestStack } from './harness.js';

const GENUINE = new URL('../fixtures/genuine/', import.meta.url);
const genuine = (path: string): any => JSON.parse(readFileSync(new URL(path, GENUINE), 'utf8'));
const MINUTE = 60_000;

describe('the soft-bounce budget counts messages, and copies under new ids are one event', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(() => stack?.stop());

  const rowsFor = async (email: string) =>
    (await stack.inboxRows()).filter((row) => row.events.some((e: { recipient: string }) => e.recipient === email));

  describe('Mailgun (Symfony temporary-failure fixture)', () => {
    const TEMPORARY = genuine('mailgun/symfony-temporary-failure.json')['event-data'];

    async function postAttempt(email: string, messageId: string, attempt: number, atMs: number) {
      const data = structuredClone(TEMPORARY);
      data.id = randomBytes(16).toString('base64url').slice(0, 22);
      data.timestamp = atMs / 1000;
      data.recipient = email;
      data.envelope.targets = email;
      data['delivery-status']['attempt-no'] = attempt;
      data.message.headers['message-id'] = messageId;
      const body = JSON.stringify({
        signature: signMailgun(stack.demo['mailgun']!.signingSecret, Date.now()),
        'event-data': data,
      });
      const response = await stack.post('mailgun', { headers: { 'content-type': 'application/json' }, body });
      expect(response).toMatchObject({ status: 200, body: { admitted: 1 } });
    }

    it('five temporary failures of one message (greylisting): five rows, one strike, still active', async () => {
      const email = 'greylisted@example.com';
      const start = Date.now() - 2 * 60 * MINUTE;
      for (const [i, minutes] of [0, 10, 20, 35, 65].entries())
        await postAttempt(email, '20260101.greylisted@mg.example.com', i + 1, start + minutes * MINUTE);
      await stack.drain();
      expect(await rowsFor(email)).toHaveLength(5);
      const record = await stack.record(email);
      expect(record).toMatchObject({ status: 'active', reasons: [] });
      expect(Object.values(record!.softBounces).map((e: any) => e.messageId)).toEqual(
        Array(5).fill('20260101.greylisted@mg.example.com'),
      );
    });

    it('three messages that each soft-bounce once: suppressed with soft_bounce_limit', async () => {
      const email = 'three-messages@example.com';
      const start = Date.now() - 3 * 60 * MINUTE;
      for (const [i, id] of ['a', 'b', 'c'].entries())
        await postAttempt(email, `20260101.${id}@mg.example.com`, 1, start + i * MINUTE);
      await stack.drain();
      expect(await stack.record(email)).toMatchObject({
        status: 'suppressed',
        reasons: ['soft_bounce_limit'],
        softBounceLimitAt: start,
      });
    });
  });

  describe("SendGrid (the documented event examples, SendGrid's batch framing)", () => {
    // Every documented example but `delivered`: a delivery to an address without a record yet is not
    // written (write-policy.ts), so whether it lands depends on the order the consumer meets the batch.
    const DOCS = [
      'dropped',
      'bounce',
      'spamreport',
      'unsubscribe',
      'group-unsubscribe',
      'group-resubscribe',
      'open',
      'processed',
    ];

    function batch(email: string, eventIds: (i: number) => string): string {
      const elements = DOCS.map((name, i) => ({
        ...genuine(`sendgrid/docs-${name}.json`)[0],
        email,
        sg_event_id: eventIds(i),
      }));
      // The signed vector B's blocked bounce too: a soft bounce in the current id format.
      const blocked = JSON.parse(
        genuine('sendgrid/vector-b.json').payload.split('\r\n')[1].replace(/^,|,$/g, '').replace(/\]$/, ''),
      );
      elements.push({ ...blocked, email, sg_event_id: eventIds(DOCS.length) });
      return sendgridBatchBody(elements);
    }
    const post = (body: string) =>
      stack.post('sendgrid', {
        headers: signSendgridBody(body, String(Math.floor(Date.now() / 1000)), stack.demo['sendgrid']!.signingSecret),
        body,
      });

    it('a batch re-sent with every sg_event_id changed adds no inbox row and no evidence entry', async () => {
      const email = 'sendgrid-copies@example.com';
      const first = await post(batch(email, (i) => `first-${i}-${randomUUID()}`));
      // 9 elements: open and processed are ignored; the other 7 are admitted.
      expect(first).toMatchObject({ status: 200, body: { received: 9, admitted: 7, duplicates: 0, ignored: 2 } });
      await stack.drain();
      const rows = await rowsFor(email);
      const record = await stack.record(email);
      expect(rows).toHaveLength(7);
      expect(record).toMatchObject({ status: 'suppressed' });
      expect(Object.keys(record!.softBounces)).toHaveLength(1);

      const copy = await post(batch(email, (i) => `retry-${i}-${randomUUID()}`));
      expect(copy).toMatchObject({ status: 200, body: { received: 9, admitted: 0, duplicates: 7, ignored: 2 } });
      await stack.drain();
      expect((await rowsFor(email)).map((r) => r.pk).sort()).toEqual(rows.map((r) => r.pk).sort());
      const after = await stack.record(email);
      expect(Object.keys(after!.evidence).sort()).toEqual(Object.keys(record!.evidence).sort());
      expect(after!.softBounces).toEqual(record!.softBounces);
      expect(after!.topics).toEqual(record!.topics);
      const { version: _v, updatedAt: _u, ...rest } = after!;
      const { version: _v0, updatedAt: _u0, ...restBefore } = record!;
      expect(rest).toEqual(restBefore);
      expect(after!.version).toBe(record!.version);
    });
  });

  describe('SES (an AWS example bounce notification)', () => {
    function publish(email: string, mailMessageId: string, snsMessageId: string, bouncedAt: string) {
      const document = genuine('ses/notification-bounce-without-dsn.json');
      document.bounce.bounceType = 'Transient';
      document.bounce.bounceSubType = 'MailboxFull';
      document.bounce.bouncedRecipients = [{ emailAddress: email }];
      document.bounce.timestamp = bouncedAt;
      document.mail.messageId = mailMessageId;
      document.mail.destination = [email];
      const credentials = stack.demo['ses']!;
      const certUrl = demoSigningCertUrl(credentials.credential, credentials.pinnedCertificate!.fileName);
      const message = signSnsMessage(
        {
          Type: 'Notification',
          MessageId: snsMessageId,
          TopicArn: credentials.credential,
          Message: JSON.stringify(document),
          Timestamp: new Date().toISOString(),
          SigningCertURL: certUrl,
          UnsubscribeURL: `${new URL(certUrl).origin}/?Action=Unsubscribe&SubscriptionArn=${credentials.credential}:x`,
        },
        credentials.signingSecret,
        '2',
      );
      return stack.post('ses', snsHttpRequest(message));
    }

    it('a bounce published twice under two SNS MessageIds is one row, one entry, one strike', async () => {
      const email = 'ses-twice@example.com';
      const base = Date.now() - 60 * MINUTE;
      const t = (minutes: number) => new Date(base + minutes * MINUTE).toISOString();
      expect(await publish(email, 'ses-message-a', randomUUID(), t(0))).toMatchObject({
        status: 200,
        body: { admitted: 1 },
      });
      expect(await publish(email, 'ses-message-a', randomUUID(), t(0))).toMatchObject({
        status: 200,
        body: { admitted: 0, duplicates: 1 },
      });
      expect(await publish(email, 'ses-message-b', randomUUID(), t(1))).toMatchObject({
        status: 200,
        body: { admitted: 1 },
      });
      await stack.drain();
      expect(await rowsFor(email)).toHaveLength(2);
      const record = await stack.record(email);
      expect(
        Object.values(record!.softBounces)
          .map((e: any) => e.messageId)
          .sort(),
      ).toEqual(['ses-message-a', 'ses-message-b']);
      // Two messages, two entries, two strikes: the copy added neither a row nor an entry.
      expect(record).toMatchObject({ status: 'active' });
      expect(await publish(email, 'ses-message-c', randomUUID(), t(2))).toMatchObject({
        status: 200,
        body: { admitted: 1 },
      });
      await stack.drain();
      expect(await stack.record(email)).toMatchObject({ status: 'suppressed', reasons: ['soft_bounce_limit'] });
    });
  });
});
