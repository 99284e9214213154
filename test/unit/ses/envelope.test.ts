/** Shape rules for the SNS envelope and its HTTP headers, each with its own negative test. */
import { describe, expect, it } from 'vitest';
import {
  confirmationFields,
  makeProvider,
  notificationFields,
  recordingCertificates,
  rejection,
  signed,
  toRequest,
} from './fixtures.js';

async function refused(
  message: Record<string, unknown>,
  headers: Record<string, string | undefined> = {},
  body?: string,
) {
  const certificates = recordingCertificates();
  const error = await rejection(makeProvider({ certificates }).receive(toRequest(message, headers, body)));
  return { error, calls: certificates.calls };
}

describe('SNS envelope shape', () => {
  it.each(['text/plain; charset=UTF-8', 'application/json', 'text/plain'])(
    'reads the body as JSON whatever the Content-Type (%s)',
    async (contentType) => {
      const receipt = await makeProvider().receive(
        toRequest(signed(notificationFields()), { 'content-type': contentType }),
      );
      expect(receipt.events.map((e) => e.kind)).toEqual(['hard_bounce']);
    },
  );

  it('rejects an unknown Type with 400', async () => {
    const message = { ...signed(notificationFields()), Type: 'SomethingElse' };
    const { error, calls } = await refused(message, { 'x-amz-sns-message-type': 'SomethingElse' });
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/unknown SNS message Type/);
    expect(calls).toEqual([]);
  });

  it('rejects a missing Type', async () => {
    const message: Record<string, unknown> = { ...signed(notificationFields()) };
    delete message['Type'];
    const { error } = await refused(message, { 'x-amz-sns-message-type': 'Notification' });
    expect(error.status).toBe(400);
  });

  it('rejects a missing x-amz-sns-message-type header', async () => {
    const { error, calls } = await refused(signed(notificationFields()), { 'x-amz-sns-message-type': undefined });
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/x-amz-sns-message-type/);
    expect(calls).toEqual([]);
  });

  it('rejects an x-amz-sns-message-type header that disagrees with the body Type', async () => {
    const { error } = await refused(signed(notificationFields()), {
      'x-amz-sns-message-type': 'SubscriptionConfirmation',
    });
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/does not match/);
  });

  it('rejects a duplicated message-type header (comma-joined)', async () => {
    const { error } = await refused(signed(notificationFields()), {
      'x-amz-sns-message-type': 'Notification,Notification',
    });
    expect(error.status).toBe(400);
  });

  it('rejects raw message delivery (x-amz-sns-rawdelivery: true) even with a valid envelope', async () => {
    const { error, calls } = await refused(signed(notificationFields()), { 'x-amz-sns-rawdelivery': 'true' });
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/raw message delivery/);
    expect(calls).toEqual([]);
  });

  it('rejects a raw-delivered SES document (no envelope, no Signature)', async () => {
    const raw = JSON.parse(notificationFields().Message) as Record<string, unknown>;
    const { error } = await refused(raw, { 'x-amz-sns-message-type': 'Notification' });
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/not an SNS envelope/);
  });

  it('rejects a body that is not JSON', async () => {
    const { error } = await refused(signed(notificationFields()), {}, 'Type=Notification');
    expect(error.status).toBe(400);
  });

  it('rejects a body that is a JSON array', async () => {
    const { error } = await refused(signed(notificationFields()), {}, '[]');
    expect(error.status).toBe(400);
  });

  it('rejects an envelope with a duplicate key (two TopicArns)', async () => {
    const message = signed(notificationFields());
    const body = JSON.stringify(message).replace(/^\{/, '{"TopicArn":"arn:aws:sns:us-east-1:999999999999:evil",');
    const { error, calls } = await refused(message, {}, body);
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/duplicate/);
    expect(calls).toEqual([]);
  });

  it('rejects invalid UTF-8', async () => {
    const certificates = recordingCertificates();
    const request = toRequest(signed(notificationFields()));
    const body = Buffer.concat([request.body.subarray(0, 10), Buffer.from([0xff]), request.body.subarray(10)]);
    const error = await rejection(makeProvider({ certificates }).receive({ ...request, body }));
    expect(error.status).toBe(400);
  });

  it.each(['Message', 'MessageId', 'Timestamp', 'TopicArn', 'Signature', 'SignatureVersion', 'SigningCertURL'])(
    'rejects a non-string %s',
    async (field) => {
      const message: Record<string, unknown> = { ...signed(notificationFields()) };
      message[field] = 1;
      const { error, calls } = await refused(message);
      expect(error.status).toBe(400);
      expect(error.message).toContain(field);
      expect(calls).toEqual([]);
    },
  );

  it.each(['MessageId', 'Timestamp', 'TopicArn', 'Signature', 'SignatureVersion', 'SigningCertURL'])(
    'rejects a missing %s',
    async (field) => {
      const message: Record<string, unknown> = { ...signed(notificationFields()) };
      delete message[field];
      const { error } = await refused(message);
      expect(error.status).toBe(400);
      expect(error.message).toContain(field);
    },
  );

  it('rejects a null Subject (absent and empty sign differently; null is neither)', async () => {
    const { error } = await refused({ ...signed(notificationFields()), Subject: null });
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/Subject/);
  });

  it('rejects a non-string Subject', async () => {
    const { error } = await refused({ ...signed(notificationFields()), Subject: ['a'] });
    expect(error.status).toBe(400);
  });

  it.each(['Token', 'SubscribeURL'])('rejects a SubscriptionConfirmation without a string %s', async (field) => {
    const message: Record<string, unknown> = { ...signed(confirmationFields('SubscriptionConfirmation')) };
    message[field] = 42;
    const { error } = await refused(message);
    expect(error.status).toBe(400);
    expect(error.message).toContain(field);
  });

  it('rejects a TopicArn that is not an SNS topic ARN with 400', async () => {
    const { error, calls } = await refused(
      signed(notificationFields({ TopicArn: 'arn:aws:sqs:us-east-1:123456789012:q' })),
    );
    expect(error.status).toBe(400);
    expect(calls).toEqual([]);
  });
});
