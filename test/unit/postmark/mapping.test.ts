/** One test per row of the Postmark mapping table (postmark.md §4–§6), plus the parsing rules. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { INVALID_RECIPIENT_REASON } from '../../../lambdas/core/classification.js';
import { MalformedRequestError } from '../../../lambdas/core/errors.js';
import { bounce, delivery, postmark, receiveOne, request, subscriptionChange } from './support.js';

const BOUNCED_AT_MS = Date.parse('2019-11-05T16:33:54.907Z');

describe('Postmark Delivery', () => {
  it('→ delivered, keyed on Recipient (trimmed, lower-cased) and DeliveredAt (7 fractional digits)', async () => {
    const event = await receiveOne(delivery(' John@Example.COM '));
    expect(event).toMatchObject({
      provider: 'postmark',
      kind: 'delivered',
      recipient: 'john@example.com',
      occurredAt: BOUNCED_AT_MS,
      detail: { providerEventType: 'Delivery' },
    });
  });

  it('carries MessageID as the message id; without a usable one there is no messageId key at all', async () => {
    expect((await receiveOne(delivery())).messageId).toBe('883953f4-6105-42a2-a16a-77a8eac79483');
    for (const MessageID of [undefined, '', 42]) {
      expect(Object.keys(await receiveOne({ ...delivery(), MessageID }))).not.toContain('messageId');
    }
  });

  it('keeps the whole body, byte for byte, as raw', async () => {
    const body = `{ "RecordType":"Delivery",\n "MessageID":"m-1", "Recipient":"a@example.com", "DeliveredAt":"2024-01-01T00:00:00Z" }`;
    expect((await receiveOne(body)).raw).toBe(body);
  });

  it('reads a timestamp with an offset', async () => {
    const event = await receiveOne({ ...delivery(), DeliveredAt: '2018-02-20T12:54:23.3396434-05:00' });
    expect(event.occurredAt).toBe(Date.parse('2018-02-20T17:54:23.339Z'));
  });

  it('rejects a record without its timestamp (400)', async () => {
    const { DeliveredAt: _, ...record } = delivery();
    await expect(postmark().receive(request(record))).rejects.toBeInstanceOf(MalformedRequestError);
  });
});

describe('Postmark Bounce', () => {
  it.each([
    ['HardBounce', true],
    ['HardBounce', false],
    ['BadEmailAddress', false],
    ['ManuallyDeactivated', true],
  ])('%s (Inactive %s) → hard_bounce', async (type, inactive) => {
    const event = await receiveOne(bounce(type, inactive));
    expect(event).toMatchObject({
      kind: 'hard_bounce',
      recipient: 'john@example.com',
      occurredAt: BOUNCED_AT_MS,
      detail: { providerEventType: 'Bounce', bounceType: type, diagnosticCode: 'Test bounce details' },
    });
  });

  it.each([
    'Transient',
    'SoftBounce',
    'DnsError',
    'SpamNotification',
    'Unknown',
    'VirusNotification',
    'Blocked',
    'DMARCPolicy',
  ])('%s (Inactive false) → soft_bounce', async (type) => {
    expect((await receiveOne(bounce(type, false))).kind).toBe('soft_bounce');
  });

  it('a soft type with Inactive true → hard_bounce: Postmark deactivated the address, Inactive is authoritative', async () => {
    expect((await receiveOne(bounce('SoftBounce', true))).kind).toBe('hard_bounce');
  });

  it('an unrecognised Type → soft_bounce: a failure, but not a proven permanent one', async () => {
    expect((await receiveOne(bounce('SomethingPostmarkAddsIn2027', false))).kind).toBe('soft_bounce');
  });

  it.each([
    'Subscribe',
    'AutoResponder',
    'AddressChange',
    'OpenRelayTest',
    'ChallengeVerification',
    'Unconfirmed',
    'SMTPApiError',
    'InboundError',
    'TemplateRenderingFailed',
  ])('%s → ignored: not a delivery failure', async (type) => {
    const event = await receiveOne(bounce(type, false));
    expect(event.kind).toBe('ignored');
    expect(event.ignoredReason).toContain(type);
  });

  it('a non-failure type stays ignored even with Inactive true', async () => {
    expect((await receiveOne(bounce('AutoResponder', true))).kind).toBe('ignored');
  });

  it('Unsubscribe (an unsubscribe-request NDR) → unsubscribe', async () => {
    expect((await receiveOne(bounce('Unsubscribe', false))).kind).toBe('unsubscribe');
  });

  it('Type SpamComplaint on the Bounce hook (legacy) → complaint', async () => {
    expect((await receiveOne(bounce('SpamComplaint', true))).kind).toBe('complaint');
  });

  it('a Bounce without a Type is still a bounce: Inactive decides (never a 4xx, Postmark would drop it)', async () => {
    const { Type: _, ...hard } = bounce('HardBounce', true);
    expect((await receiveOne(hard)).kind).toBe('hard_bounce');
    const { Type: __, ...soft } = bounce('SoftBounce', false);
    expect((await receiveOne(soft)).kind).toBe('soft_bounce');
  });

  it("never reads TypeCode (Postmark's own SpamComplaint example carries 512, the SDK's SpamNotification)", async () => {
    expect((await receiveOne(bounce('HardBounce', true, { TypeCode: 512 }))).kind).toBe('hard_bounce');
  });
});

describe('Postmark SpamComplaint', () => {
  it('→ complaint, keyed on Email and BouncedAt', async () => {
    const record = bounce('SpamComplaint', true, {
      RecordType: 'SpamComplaint',
      TypeCode: 512,
      Email: 'Spam@Example.com',
    });
    expect(await receiveOne(record)).toMatchObject({
      kind: 'complaint',
      recipient: 'spam@example.com',
      occurredAt: BOUNCED_AT_MS,
      detail: { providerEventType: 'SpamComplaint' },
    });
  });
});

describe('Postmark SubscriptionChange', () => {
  const CHANGED_AT_MS = Date.parse('2020-02-01T10:53:34.416Z');

  it.each([
    ['HardBounce', 'Recipient', 'hard_bounce'],
    ['SpamComplaint', 'Recipient', 'complaint'],
    ['ManualSuppression', 'Recipient', 'unsubscribe'],
    ['ManualSuppression', 'Customer', 'unsubscribe'],
    ['ManualSuppression', 'Admin', 'unsubscribe'],
  ])('SuppressSending true, %s (Origin %s) → %s', async (reason, origin, kind) => {
    expect(await receiveOne(subscriptionChange(true, reason, origin))).toMatchObject({
      kind,
      recipient: 'bounced-address@wildbit.com',
      occurredAt: CHANGED_AT_MS,
      detail: { providerEventType: 'SubscriptionChange', bounceType: reason },
    });
  });

  it('SuppressSending false (a reactivation) → subscribe to the stream topic, never a global un-suppression', async () => {
    const event = await receiveOne(subscriptionChange(false, null, 'Customer'));
    expect(event).toMatchObject({ kind: 'subscribe', topic: 'postmark:stream:outbound' });
  });

  it('an unrecognised SuppressionReason → ignored', async () => {
    expect((await receiveOne(subscriptionChange(true, 'SomethingNew'))).kind).toBe('ignored');
  });

  it('acknowledges a SuppressSending that is not a boolean as ignored (authenticated: never a 4xx)', async () => {
    const record = { ...subscriptionChange(true, 'HardBounce'), SuppressSending: 'true' };
    const event = await receiveOne(record);
    expect([event.kind, event.ignoredReason]).toEqual(['ignored', 'SuppressSending is not a boolean']);
  });
});

describe('Postmark engagement and unknown records', () => {
  it.each(['Open', 'Click'])('%s → ignored', async (recordType) => {
    const record = {
      RecordType: recordType,
      MessageID: 'm-1',
      Recipient: 'john@example.com',
      ReceivedAt: '2019-11-05T16:33:54.9070259Z',
      MessageStream: 'outbound',
    };
    expect(await receiveOne(record)).toMatchObject({
      kind: 'ignored',
      ignoredReason: 'engagement event',
      occurredAt: BOUNCED_AT_MS,
    });
  });

  it.each(['Inbound', 'constructor', '__proto__', 'toString'])(
    'an unknown RecordType %j → ignored',
    async (recordType) => {
      const event = await receiveOne({ RecordType: recordType, Recipient: 'john@example.com' });
      expect(event).toMatchObject({
        kind: 'ignored',
        ignoredReason: 'unsupported RecordType',
        recipient: 'john@example.com',
      });
    },
  );

  it('rejects a record without a RecordType (400)', async () => {
    const { RecordType: _, ...record } = delivery();
    await expect(postmark().receive(request(record))).rejects.toBeInstanceOf(MalformedRequestError);
  });
});

describe('Postmark recipients', () => {
  it('turns a recipient that is not an address into an ignored event, not a 400 that would pause the hook', async () => {
    const event = await receiveOne(bounce('HardBounce', true, { Email: 'not an address' }));
    expect(event).toMatchObject({ kind: 'ignored', ignoredReason: INVALID_RECIPIENT_REASON, recipient: '' });
  });

  it('reads Email, not Recipient, on a Bounce', async () => {
    const event = await receiveOne(bounce('HardBounce', true, { Recipient: 'other@example.com' }));
    expect(event.recipient).toBe('john@example.com');
  });
});

describe('Postmark sender: the message stream within its server', () => {
  // Postmark's own Delivery test payload (test/fixtures/genuine/postmark/README.md): ServerID 23, stream "outbound".
  const genuine = JSON.parse(
    readFileSync(new URL('../../fixtures/genuine/postmark/symfony-delivery.json', import.meta.url), 'utf8'),
  ) as Record<string, unknown>;

  it.each([
    ['a numeric ServerID (as Postmark sends it)', 'postmark:stream/23/outbound', 23],
    ['a ServerID written as text', 'postmark:stream/23/outbound', '23'],
    ['no ServerID: the stream alone', 'postmark:stream/outbound', undefined],
    ['a ServerID that is neither: the stream alone', 'postmark:stream/outbound', true],
  ])('%s → %s', async (_, sender, ServerID) => {
    const event = await receiveOne({ ...genuine, ServerID });
    expect(event).toMatchObject({ kind: 'delivered', recipient: 'john@example.com', sender });
  });
});

describe('Postmark body parsing', () => {
  it.each([
    [
      'a duplicate JSON key',
      '{"RecordType":"Bounce","Type":"HardBounce","Email":"victim@example.com","Email":"x@example.com","BouncedAt":"2024-01-01T00:00:00Z"}',
    ],
    [
      'a nested duplicate key',
      '{"RecordType":"Delivery","Recipient":"a@example.com","DeliveredAt":"2024-01-01T00:00:00Z","Metadata":{"a":1,"a":2}}',
    ],
    ['invalid JSON', '{"RecordType":"Delivery",'],
    ['an array (Postmark sends one record per request)', JSON.stringify([delivery()])],
    ['a JSON string', '"Delivery"'],
  ])('rejects %s (400)', async (_, body) => {
    await expect(postmark().receive(request(body))).rejects.toBeInstanceOf(MalformedRequestError);
  });

  it('rejects a body that is not UTF-8 (400)', async () => {
    const body = Buffer.concat([
      Buffer.from('{"RecordType":"Delivery","Recipient":"a@example.com","x":"'),
      Buffer.from([0xff]),
      Buffer.from('"}'),
    ]);
    await expect(postmark().receive(request(body))).rejects.toBeInstanceOf(MalformedRequestError);
  });
});
