/** Postmark has no event id: ours must be identical across retries and distinct between events. */
import { describe, expect, it } from 'vitest';
import { postmarkEventId } from '../../../lambdas/core/providers/postmark/map.js';
import { postmarkAuthorization } from '../../../lib/demo/postmark.js';
import { bounce, CREDENTIAL, delivery, postmark, request, subscriptionChange } from './support.js';

describe('Postmark eventId', () => {
  it('is a SHA-256 hex digest', () => {
    expect(postmarkEventId(delivery())).toMatch(/^[0-9a-f]{64}$/);
  });

  it('is the same for a retry: same record, different retry headers', async () => {
    const first = await postmark().receive(request(delivery()));
    const retry = await postmark().receive(
      request(delivery(), { authorization: postmarkAuthorization(CREDENTIAL), 'x-pm-retries-remaining': '5' }),
    );
    expect(retry.events[0]!.eventId).toBe(first.events[0]!.eventId);
  });

  it.each([
    ['RecordType', { RecordType: 'SpamComplaint' }],
    ['bounce ID', { ID: 1 }],
    ['MessageID', { MessageID: 'another-message' }],
    ['recipient', { Email: 'jane@example.com' }],
    ['event timestamp', { BouncedAt: '2019-11-05T16:33:55.0000000Z' }],
    ['MessageStream', { MessageStream: 'broadcast' }],
  ])('changes with the %s', (_, change) => {
    const record = bounce('HardBounce', true);
    expect(postmarkEventId({ ...record, ...change })).not.toBe(postmarkEventId(record));
  });

  it('tells two recipients of one message apart (one Delivery each)', () => {
    expect(postmarkEventId(delivery('a@example.com'))).not.toBe(postmarkEventId(delivery('b@example.com')));
  });

  it('tells a suppression from a reactivation at the same instant apart', () => {
    const suppression = subscriptionChange(true, 'ManualSuppression');
    const reactivation = { ...suppression, SuppressSending: false };
    expect(postmarkEventId(suppression)).not.toBe(postmarkEventId(reactivation));
  });

  it('tells two clicked links apart', () => {
    const click = {
      RecordType: 'Click',
      MessageID: 'm',
      Recipient: 'a@example.com',
      ReceivedAt: '2024-01-01T00:00:00Z',
    };
    expect(postmarkEventId({ ...click, OriginalLink: 'https://a.example' })).not.toBe(
      postmarkEventId({ ...click, OriginalLink: 'https://b.example' }),
    );
  });

  it('has an unambiguous separator: shifting characters between fields changes the id', () => {
    const a = { ...delivery('bc@example.com'), MessageID: 'a' };
    const b = { ...delivery('c@example.com'), MessageID: 'ab' };
    expect(postmarkEventId(a)).not.toBe(postmarkEventId(b));
    const quoted = { ...delivery(), MessageID: 'x","y' };
    const split = { ...delivery(), MessageID: 'x', Recipient: `y","${delivery().Recipient as string}` };
    expect(postmarkEventId(quoted)).not.toBe(postmarkEventId(split));
  });

  it('does not confuse a null MessageID with the string "null"', () => {
    const change = subscriptionChange(false, null);
    expect(postmarkEventId(change)).not.toBe(postmarkEventId({ ...change, MessageID: 'null' }));
  });
});
