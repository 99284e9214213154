/**
 * Every Mailgun refusal with its status and exact message, the event id's shape at its bounds, and the
 * detail read from `delivery-status`.
 */
import { describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  MalformedRequestError,
  ReplayError,
  TransientError,
} from '../../../lambdas/core/errors.js';
import { classifyMailgunEvent, mailgunEvent } from '../../../lambdas/core/providers/mailgun/map.js';
import { sampleMailgunEventData, signMailgun } from '../../../lib/demo/mailgun.js';
import { NOW_MS } from '../support/provider.js';
import { KEY, mailgun, request } from './support.js';

const EMAIL = 'bounced@example.com';
const eventData = (fields: Record<string, unknown> = {}) => ({
  ...sampleMailgunEventData('hard_bounce', EMAIL, NOW_MS),
  ...fields,
});
const signedBody = (data: unknown = eventData(), token?: string) => ({
  signature: signMailgun(KEY, NOW_MS, token),
  'event-data': data,
});

async function refusedWith(
  payload: string | object,
  type: new (...args: never[]) => Error,
  status: number,
  message: string,
) {
  const receipt = mailgun().provider.receive(request(payload));
  await expect(receipt).rejects.toThrow(type);
  await expect(receipt).rejects.toMatchObject({ status, message });
}

describe('Mailgun body refusals', () => {
  it('a body that is not JSON, or not an object, is 400 with the reason', async () => {
    await refusedWith('{"signature":', MalformedRequestError, 400, 'Mailgun body is not valid JSON');
    await refusedWith('[1, 2]', MalformedRequestError, 400, 'Mailgun body is not a JSON object');
  });

  it('a signed body with a duplicate key anywhere is 400 with the reason', async () => {
    const text = JSON.stringify(signedBody()).replace('"event-data":{', '"event-data":{"tags":[],"tags":["x"],');
    await refusedWith(text, MalformedRequestError, 400, 'Mailgun body has a duplicate JSON key');
  });

  it('a signature timestamp that is null is missing; one that is not digits says so', async () => {
    const good = signedBody();
    await refusedWith(
      { ...good, signature: { ...good.signature, timestamp: null } },
      AuthenticationError,
      401,
      'Mailgun signature timestamp is missing',
    );
    await refusedWith(
      { ...good, signature: { ...good.signature, timestamp: true } },
      AuthenticationError,
      401,
      'Mailgun signature timestamp is missing',
    );
    await refusedWith(
      { ...good, signature: { ...good.signature, timestamp: '17e8' } },
      AuthenticationError,
      401,
      'Mailgun signature timestamp is not a Unix timestamp',
    );
  });

  it('a signature that is not hex says so', async () => {
    const good = signedBody();
    await refusedWith(
      { ...good, signature: { ...good.signature, signature: 'zz'.repeat(32) } },
      AuthenticationError,
      401,
      'Mailgun signature is not hex',
    );
  });
});

describe('Mailgun token claim failures', () => {
  it('a store failure is a 503 carrying the cause', async () => {
    const down = new Error('DynamoDB unavailable');
    const h = mailgun({ nonces: { claim: () => Promise.reject(down) } });
    const receipt = h.provider.receive(request(signedBody()));
    await expect(receipt).rejects.toThrow(TransientError);
    await expect(receipt).rejects.toMatchObject({
      status: 503,
      message: 'could not claim the Mailgun token',
      cause: down,
    });
  });

  it('the same token with another body is a 409 with its reason', async () => {
    const h = mailgun();
    const token = 'a'.repeat(50);
    await h.provider.receive(request(signedBody(eventData(), token)));
    const receipt = h.provider.receive(request(signedBody(eventData({ recipient: 'other@example.com' }), token)));
    await expect(receipt).rejects.toThrow(ReplayError);
    await expect(receipt).rejects.toMatchObject({
      status: 409,
      message: 'Mailgun token was already used with a different body',
    });
  });
});

describe('Mailgun event-data', () => {
  const refused = (data: unknown, message: string) => {
    let error: unknown;
    try {
      mailgunEvent(data, 'raw');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MalformedRequestError);
    expect(error).toMatchObject({ status: 400, code: 'malformed_request', message });
  };

  it('each missing part is refused with its own reason', () => {
    refused(undefined, 'Mailgun event-data is missing');
    refused([eventData()], 'Mailgun event-data is missing');
    refused(eventData({ event: 7 }), 'Mailgun event-data has no event type');
    refused(eventData({ id: '' }), 'Mailgun event-data has no valid id');
    refused(eventData({ id: 42 }), 'Mailgun event-data has no valid id');
    refused(eventData({ id: 'i'.repeat(101) }), 'Mailgun event-data has no valid id');
    refused(eventData({ timestamp: 'later' }), 'Mailgun event timestamp is not a timestamp');
  });

  it('an id of 100 characters is kept, joined to the timestamp as sent (without blanks)', () => {
    const id = 'i'.repeat(100);
    const e = mailgunEvent(eventData({ id, timestamp: ' 1736942398.641821 ' }), 'raw');
    expect(e).toMatchObject({
      eventId: `${id}:1736942398.641821`,
      occurredAt: 1_736_942_398_642,
      raw: 'raw',
      kind: 'hard_bounce',
    });
  });

  it('only a string reason can name a suppression list', () => {
    expect(classifyMailgunEvent('failed', { severity: 'permanent', reason: ['suppress-bounce'] })).toEqual({
      kind: 'hard_bounce',
      detail: { bounceType: 'permanent', providerEventType: 'failed' },
    });
  });

  it('delivery-status: an integer code is the status, a fractional or absent one is not', () => {
    const statusOf = (ds: Record<string, unknown>) =>
      classifyMailgunEvent('delivered', { 'delivery-status': ds }).detail.status;
    expect(statusOf({ code: 250 })).toBe('250');
    expect(statusOf({ code: '605' })).toBe('605');
    expect(statusOf({ code: 5.5 })).toBeUndefined();
    expect(statusOf({ message: 'OK' })).toBeUndefined();
    expect(classifyMailgunEvent('delivered', { 'delivery-status': { message: 'OK' } }).detail).toEqual({
      diagnosticCode: 'OK',
      providerEventType: 'delivered',
    });
  });
});
