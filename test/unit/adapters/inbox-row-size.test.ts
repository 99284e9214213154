/**
 * Every inbox row for AWS's published SES examples is at most 1,000 bytes by DynamoDB's item-size rules
 * (dynamodb-item-size.ts, "DynamoDB item sizes and formats"), content key included, so a put costs one
 * write unit. The examples are test/fixtures/genuine/ses (sources in its README: the SES Developer
 * Guide's notification examples and event-publishing records), each delivered the way SNS delivers it:
 * the SNS developer guide's envelope layout, a 2048-bit RSA signature (SNS's key size), a 32-hex-digit
 * certificate name, the subscription's UnsubscribeURL. The row is what DynamoInbox.prepare writes for the
 * events the real SES provider and the edge's content keys make of it.
 */
import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoInbox, type StoredRow, storedRowAttributes } from '../../../lambdas/adapters/dynamodb-inbox.js';
import { itemSize, writeUnits } from '../../../lambdas/adapters/dynamodb-item-size.js';
import { readInboxRow } from '../../../lambdas/adapters/inbox-schema.js';
import { isActionable } from '../../../lambdas/core/event.js';
import { keyedByContent } from '../../../lambdas/core/pipeline/content-key.js';
import { lowerCaseHeaders } from '../../../lambdas/core/request.js';
import { signSnsMessage } from '../../../lib/demo/ses.js';
import {
  CERT_URL,
  GENUINE_SES_EXAMPLES,
  genuineSesExample,
  makeProvider,
  NOW,
  signingCertificate,
  TOPIC_ARN,
} from '../ses/fixtures.js';

/** SNS's own layout ("Key" : value, two-space indent), as in the SNS developer guide's examples. */
function snsLayout(message: Record<string, string>): string {
  return `{\n${Object.entries(message)
    .map(([k, v]) => `  ${JSON.stringify(k)} : ${JSON.stringify(v)}`)
    .join(',\n')}\n}`;
}

async function rowFor(example: string, version: '1' | '2') {
  const document = genuineSesExample(example);
  const message = signSnsMessage(
    {
      Type: 'Notification',
      MessageId: randomUUID(),
      TopicArn: TOPIC_ARN,
      Message: document,
      Timestamp: new Date(NOW - 1_000).toISOString(),
      SigningCertURL: CERT_URL,
      UnsubscribeURL: `https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=${TOPIC_ARN}:${randomUUID()}`,
    },
    signingCertificate().privateKey,
    version,
  );
  const raw = snsLayout(message);
  const receipt = await makeProvider().receive({
    body: Buffer.from(raw, 'utf8'),
    headers: lowerCaseHeaders({
      'content-type': 'text/plain; charset=UTF-8',
      'x-amz-sns-message-type': 'Notification',
    }),
  });
  const events = receipt.events.filter(isActionable).map(keyedByContent);
  const inbox = new DynamoInbox({} as DynamoDBDocumentClient, 'inbox', { ttlSeconds: 30 * 86_400 });
  const { item } = inbox.prepare(events, NOW) as unknown as { item: StoredRow };
  return { raw, events, item, bytes: itemSize(storedRowAttributes(item)) };
}

describe('inbox rows for AWS’s SES examples', () => {
  it.each(GENUINE_SES_EXAMPLES.flatMap((e) => [[e, '1'] as const, [e, '2'] as const]))(
    '%s (SignatureVersion %s): at most 1,000 bytes, one write unit, content key included',
    async (example, version) => {
      const { item, bytes, events } = await rowFor(example, version);
      expect(events.length).toBeGreaterThan(0);
      expect(item.pk).toMatch(/^ses#c1\.[A-Za-z0-9_-]{43}$/);
      expect(bytes).toBeLessThanOrEqual(1_000);
      expect(writeUnits(bytes)).toBe(1);
    },
  );

  it.each(GENUINE_SES_EXAMPLES)('%s: the row reads back to the exact payload and the same events', async (example) => {
    const { raw, events, item } = await rowFor(example, '2');
    const row = readInboxRow({ ...item });
    expect(row!.raw).toBe(raw);
    expect(row!.events).toEqual(events.map(({ raw: _raw, ...rest }) => rest));
  });

  it('sizes the way DynamoDB does: names plus values, the number by its significant digits', async () => {
    const { item, bytes } = await rowFor('notification-bounce-with-dsn', '2');
    const expected =
      'pk'.length +
      Buffer.byteLength(item.pk) +
      'expiresAt'.length +
      (Math.ceil(String(item.expiresAt).replace(/0+$/, '').length / 2) + 1) +
      'body'.length +
      item.body.byteLength +
      'v'.length +
      2;
    expect(bytes).toBe(expected);
  });
});
