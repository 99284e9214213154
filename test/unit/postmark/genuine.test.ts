/**
 * Genuine Postmark webhook bodies (test/fixtures/genuine/postmark, sources in its README) through the
 * real provider, with Basic auth and an injected clock. Postmark signs nothing, so the bytes are sent
 * exactly as published.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { NormalizedEvent } from '../../../lambdas/core/event.js';
import { postmarkEventId } from '../../../lambdas/core/providers/postmark/map.js';
import { postmark, request } from './support.js';

const DIR = new URL('../../fixtures/genuine/postmark/', import.meta.url);
const text = (file: string) => readFileSync(new URL(file, DIR), 'utf8');

type Expected = Pick<NormalizedEvent, 'kind' | 'occurredAt' | 'detail'> & {
  ignoredReason?: string;
  messageId?: string;
  /** The server and message stream every record names (Delivery names no From): docs/reputation.md. */
  sender?: string;
};

const CASES: Array<[string, Expected]> = [
  [
    'symfony-delivery.json',
    {
      kind: 'delivered',
      sender: 'postmark:stream/23/outbound',
      messageId: '00000000-0000-0000-0000-000000000000',
      occurredAt: Date.parse('2022-09-02T11:49:27Z'),
      detail: { providerEventType: 'Delivery' },
    },
  ],
  [
    'symfony-bounce.json',
    {
      kind: 'hard_bounce',
      sender: 'postmark:stream/1234/outbound',
      messageId: '00000000-0000-0000-0000-000000000000',
      // Seven fractional digits, as Postmark writes them.
      occurredAt: Date.parse('2022-09-02T14:29:19.123Z'),
      detail: { providerEventType: 'Bounce', bounceType: 'HardBounce', diagnosticCode: 'Test bounce details' },
    },
  ],
  [
    'symfony-spam-complaint.json',
    {
      kind: 'complaint',
      sender: 'postmark:stream/1234/outbound',
      messageId: '00000000-0000-0000-0000-000000000000',
      occurredAt: Date.parse('2022-09-02T14:29:57.123Z'),
      detail: {
        providerEventType: 'SpamComplaint',
        bounceType: 'SpamComplaint',
        diagnosticCode: 'Test spam complaint details',
      },
    },
  ],
  // Used by the topics work: only what holds today (SuppressSending + HardBounce → hard bounce). No
  // sender: Postmark sent the Bounce record already, so this suppression must not count it again.
  [
    'symfony-subscription-change.json',
    {
      kind: 'hard_bounce',
      messageId: '00000000-0000-0000-0000-000000000000',
      occurredAt: Date.parse('2022-09-02T14:32:30Z'),
      detail: { providerEventType: 'SubscriptionChange', bounceType: 'HardBounce' },
    },
  ],
  [
    'symfony-open.json',
    {
      kind: 'ignored',
      ignoredReason: 'engagement event',
      occurredAt: Date.parse('2022-09-02T14:30:47Z'),
      detail: { providerEventType: 'Open' },
    },
  ],
  [
    'symfony-link-click.json',
    {
      kind: 'ignored',
      ignoredReason: 'engagement event',
      occurredAt: Date.parse('2022-09-02T14:31:09Z'),
      detail: { providerEventType: 'Click' },
    },
  ],
];

describe('Postmark webhook bodies (Postmark test payloads, as captured by Symfony)', () => {
  it.each(CASES)('%s', async (file, expected) => {
    const body = text(file);
    const { events } = await postmark().receive(request(body));
    expect(events).toEqual([
      {
        provider: 'postmark',
        eventId: postmarkEventId(JSON.parse(body) as Record<string, unknown>),
        recipient: 'john@example.com',
        raw: body,
        ...expected,
      },
    ]);
  });

  it.each(CASES.map(([file]) => file))('%s without the Basic auth credential is refused (401)', async (file) => {
    await expect(postmark().receive(request(text(file), {}))).rejects.toMatchObject({ status: 401 });
  });

  it('event ids are distinct across the six records and stable for the same bytes', () => {
    const ids = CASES.map(([file]) => postmarkEventId(JSON.parse(text(file)) as Record<string, unknown>));
    expect(new Set(ids).size).toBe(ids.length);
    expect(postmarkEventId(JSON.parse(text('symfony-bounce.json')) as Record<string, unknown>)).toBe(ids[1]);
  });
});

/** The genuine Bounce record with another documented Type (Postmark bounce API "Bounce types"). */
function bounceOfType(type: string, typeCode: number, inactive: boolean): string {
  const record = JSON.parse(text('symfony-bounce.json')) as Record<string, unknown>;
  return JSON.stringify({ ...record, Type: type, TypeCode: typeCode, Inactive: inactive, CanActivate: !inactive });
}

describe('Bounce records of each documented Type', () => {
  it.each([
    ['HardBounce', 1, true, 'hard_bounce'],
    ['Transient', 2, false, 'soft_bounce'],
    ['Unsubscribe', 16, false, 'unsubscribe'],
    ['Subscribe', 32, false, 'ignored'],
    ['AutoResponder', 64, false, 'ignored'],
    ['AddressChange', 128, false, 'ignored'],
    ['DnsError', 256, false, 'soft_bounce'],
    ['SpamNotification', 512, false, 'soft_bounce'],
    ['OpenRelayTest', 1024, false, 'ignored'],
    ['Unknown', 2048, false, 'soft_bounce'],
    ['SoftBounce', 4096, false, 'soft_bounce'],
    ['VirusNotification', 8192, false, 'soft_bounce'],
    ['ChallengeVerification', 16384, false, 'ignored'],
    ['BadEmailAddress', 100000, true, 'hard_bounce'],
    ['SpamComplaint', 100001, true, 'complaint'],
    ['ManuallyDeactivated', 100002, true, 'hard_bounce'],
    ['Unconfirmed', 100003, false, 'ignored'],
    ['Blocked', 100006, false, 'soft_bounce'],
    ['SMTPApiError', 100007, false, 'ignored'],
    ['InboundError', 100008, false, 'ignored'],
    ['DMARCPolicy', 100009, false, 'soft_bounce'],
    ['TemplateRenderingFailed', 100010, false, 'ignored'],
    // Inactive is Postmark's own verdict: a soft-looking type that deactivated the address is hard.
    ['SoftBounce', 4096, true, 'hard_bounce'],
    ['SomeTypeAddedLater', 123456, false, 'soft_bounce'],
  ])('%s (TypeCode %i, Inactive %s) → %s', async (type, code, inactive, kind) => {
    const { events } = await postmark().receive(request(bounceOfType(type, code, inactive)));
    expect(events.map((e) => [e.recipient, e.kind, e.detail.bounceType])).toEqual([['john@example.com', kind, type]]);
  });

  it("the docs' SpamComplaint record with TypeCode 512 is still a complaint (TypeCode is never read)", async () => {
    const record = JSON.parse(text('symfony-spam-complaint.json')) as Record<string, unknown>;
    const { events } = await postmark().receive(request(JSON.stringify({ ...record, TypeCode: 512 })));
    expect(events.map((e) => e.kind)).toEqual(['complaint']);
  });

  it('a RecordType Postmark adds later is acknowledged as ignored, never 4xx', async () => {
    const record = JSON.parse(text('symfony-delivery.json')) as Record<string, unknown>;
    const { events } = await postmark().receive(request(JSON.stringify({ ...record, RecordType: 'SomethingNew' })));
    expect(events.map((e) => [e.kind, e.ignoredReason, e.recipient])).toEqual([
      ['ignored', 'unsupported RecordType', 'john@example.com'],
    ]);
  });
});
