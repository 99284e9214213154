/**
 * Which SendGrid bounces are permanent, `dropped` echoes, event ids and unusable elements: each rule
 * at the exact input that tells it apart from its neighbours.
 */
import { describe, expect, it } from 'vitest';
import { MalformedRequestError } from '../../../lambdas/core/errors.js';
import { classifySendgridEvent, parseSendgridBatch } from '../../../lambdas/core/providers/sendgrid/map.js';

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

const kindOf = (element: Record<string, unknown>) => classifySendgridEvent('bounce', element).kind;

describe('SendGrid bounce: type, then enhanced status, then the reply code in reason', () => {
  it('type "bounce" is hard even when the status class says temporary', () => {
    expect(kindOf({ type: 'bounce', status: '4.2.2', reason: '452 mailbox full' })).toBe('hard_bounce');
    expect(kindOf({ type: 'blocked', status: '5.1.1', reason: '550 no such user' })).toBe('soft_bounce');
  });

  it('an untyped bounce is hard exactly when its status is 5.x.x (1 to 3 digits per part, whole string)', () => {
    expect(kindOf({ status: '5.0.0' })).toBe('hard_bounce');
    expect(kindOf({ status: '5.10.1' })).toBe('hard_bounce');
    expect(kindOf({ status: '5.1.10' })).toBe('hard_bounce');
    expect(kindOf({ status: '5.100.100' })).toBe('hard_bounce');
    expect(kindOf({ status: ' 5.1.1 ' })).toBe('hard_bounce');
    expect(kindOf({ status: '45.1.1' })).toBe('soft_bounce');
    expect(kindOf({ status: '5.1.1x' })).toBe('soft_bounce');
    expect(kindOf({ status: '5.1000.1' })).toBe('soft_bounce');
    expect(kindOf({ status: '4.0.0', reason: '550 unknown recipient' })).toBe('soft_bounce');
  });

  it('without a usable status, a reason starting with a 5xx reply code decides', () => {
    expect(kindOf({ reason: '500 unknown recipient' })).toBe('hard_bounce');
    expect(kindOf({ reason: '  550 5.1.1 no such user' })).toBe('hard_bounce');
    expect(kindOf({ status: '', reason: '550 no such user' })).toBe('hard_bounce');
    expect(kindOf({ status: '   ', reason: '550 no such user' })).toBe('hard_bounce');
    expect(kindOf({ status: 550, reason: '550 no such user' })).toBe('hard_bounce');
    expect(kindOf({ reason: 'error 550 no such user' })).toBe('soft_bounce');
    expect(kindOf({ reason: '5500 not a reply code' })).toBe('soft_bounce');
    expect(kindOf({ reason: '450 try later' })).toBe('soft_bounce');
  });

  it('with neither status nor reason it is the recoverable soft bounce', () => {
    expect(kindOf({})).toBe('soft_bounce');
    expect(kindOf({ reason: 550 })).toBe('soft_bounce');
  });
});

describe('SendGrid dropped', () => {
  it('only a string reason can name a suppression list', () => {
    const c = classifySendgridEvent('dropped', { reason: ['Bounced Address'] });
    expect(c).toEqual({
      kind: 'ignored',
      ignoredReason: 'dropped for a reason that is not a suppression echo',
      detail: { providerEventType: 'dropped' },
    });
    expect(classifySendgridEvent('dropped', { reason: 'Bounced Address' })).toEqual({
      kind: 'hard_bounce',
      detail: { providerEventType: 'dropped', diagnosticCode: 'Bounced Address', echo: true },
    });
  });
});

const delivered = (fields: Record<string, unknown>) =>
  JSON.stringify([{ email: 'a@example.com', event: 'delivered', timestamp: 1_700_000_000, ...fields }]);

describe('SendGrid batch elements', () => {
  it('a body that is JSON but neither an array nor an object is refused with 400 and its reason', () => {
    for (const body of ['42', '"text"', 'null']) {
      const error = thrown(() => parseSendgridBatch(body));
      expect(error).toBeInstanceOf(MalformedRequestError);
      expect(error).toMatchObject({
        status: 400,
        code: 'malformed_request',
        message: 'SendGrid body is not a JSON array',
      });
    }
  });

  it('an element that is not an object becomes an ignored event with an empty id', () => {
    expect(parseSendgridBatch('[42]')).toEqual([
      {
        provider: 'sendgrid',
        eventId: '',
        recipient: '',
        kind: 'ignored',
        ignoredReason: 'unusable SendGrid event: not an object',
        occurredAt: 0,
        detail: {},
        raw: '42',
      },
    ]);
  });

  it('sg_event_id must be a string of 1 to 100 characters', () => {
    const ok = parseSendgridBatch(delivered({ sg_event_id: 'e'.repeat(100) }))[0]!;
    expect(ok).toMatchObject({ kind: 'delivered', eventId: 'e'.repeat(100), occurredAt: 1_700_000_000_000 });
    for (const id of [12345, 'e'.repeat(101), '', null]) {
      const [e] = parseSendgridBatch(delivered({ sg_event_id: id }));
      expect(e).toMatchObject({
        kind: 'ignored',
        eventId: '',
        ignoredReason: 'unusable SendGrid event: no valid sg_event_id',
      });
    }
  });

  it('an actionable event without a readable timestamp keeps its id and says why it is unusable', () => {
    const [e] = parseSendgridBatch(delivered({ sg_event_id: 'abc', timestamp: 'yesterday' }));
    expect(e).toMatchObject({
      kind: 'ignored',
      eventId: 'abc',
      occurredAt: 0,
      ignoredReason: 'unusable SendGrid event: no readable timestamp',
    });
  });
});
