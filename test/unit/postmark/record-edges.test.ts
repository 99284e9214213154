/**
 * Postmark records at the edges of the mapping: subscription changes without a usable stream or reason,
 * record types this code does not know, bounce text fallbacks, and an unreadable RecordType.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MalformedRequestError } from '../../../lambdas/core/errors.js';
import { postmarkEvent } from '../../../lambdas/core/providers/postmark/map.js';
import { bounce, subscriptionChange } from './support.js';

const map = (record: Record<string, unknown>) => postmarkEvent(record, 'raw');

describe('Postmark SubscriptionChange without a usable stream or reason', () => {
  it('a reactivation without a MessageStream is ignored, with its reason', () => {
    const e = map({ ...subscriptionChange(false, null), MessageStream: '' });
    expect(e).toMatchObject({ kind: 'ignored', ignoredReason: 'reactivation without a usable MessageStream' });
    expect(e.topic).toBeUndefined();
  });

  it('a ManualSuppression without a MessageStream is a global unsubscribe', () => {
    const record = subscriptionChange(true, 'ManualSuppression');
    delete record['MessageStream'];
    const e = map(record);
    expect(e).toMatchObject({ kind: 'unsubscribe', recipient: 'bounced-address@wildbit.com' });
    expect(e).not.toHaveProperty('topic');
    expect(e.ignoredReason).toBeUndefined();
  });

  it('an unknown SuppressionReason is ignored, with its reason', () => {
    expect(map(subscriptionChange(true, 'SomethingNew'))).toMatchObject({
      kind: 'ignored',
      ignoredReason: 'unrecognised SuppressionReason',
    });
  });
});

describe('Postmark record types this code does not know', () => {
  const future = {
    RecordType: 'Future',
    MessageID: 'm-1',
    MessageStream: 'outbound',
    Recipient: 'Future@Example.com',
    Whenever: '2024-01-01T00:00:00Z',
  };

  it('are ignored with time 0, keyed on type, message id, Recipient and stream', () => {
    const e = map(future);
    const tuple = ['Future', null, 'm-1', 'Future@Example.com', null, 'outbound', null, null];
    expect(e).toMatchObject({
      provider: 'postmark',
      kind: 'ignored',
      ignoredReason: 'unsupported RecordType',
      recipient: 'future@example.com',
      occurredAt: 0,
      eventId: createHash('sha256').update(JSON.stringify(tuple)).digest('hex'),
    });
  });

  it('fall back to Email for the recipient', () => {
    const { Recipient: _ignored, ...rest } = future;
    expect(map({ ...rest, Email: 'other@example.com' })).toMatchObject({
      recipient: 'other@example.com',
      kind: 'ignored',
    });
  });
});

describe('Postmark bounce text and RecordType', () => {
  it('the diagnostic is Details, or Description when Details is empty', () => {
    expect(map(bounce('HardBounce', true, { Details: '' })).detail).toMatchObject({
      diagnosticCode: 'The server was unable to deliver your message (ex: unknown user, mailbox not found).',
    });
    expect(map(bounce('HardBounce', true)).detail).toMatchObject({ diagnosticCode: 'Test bounce details' });
  });

  it('a RecordType that is not a string is a 400 with its reason', () => {
    let error: unknown;
    try {
      map({ RecordType: 7 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MalformedRequestError);
    expect(error).toMatchObject({ status: 400, code: 'malformed_request', message: 'RecordType is not a string' });
  });
});
