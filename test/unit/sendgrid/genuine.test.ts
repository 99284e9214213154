/**
 * Genuine SendGrid payloads (test/fixtures/genuine/sendgrid, sources in its README) through the real
 * provider under an injected clock: the three signed vectors from @sendgrid/eventwebhook's own spec,
 * verified with SendGrid's published test keys, and every per-event example from SendGrid's Event
 * Webhook reference, signed here with a stand-in key (SendGrid publishes them unsigned).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { NormalizedEvent } from '../../../lambdas/core/event.js';
import { signSendgridBody } from '../../../lib/demo/sendgrid.js';
import { NOW_MS, request } from '../support/provider.js';
import { CREDENTIALS, receiveSigned, SIGNATURE_HEADER, sendgrid, TIMESTAMP_HEADER } from './support.js';

const DIR = new URL('../../fixtures/genuine/sendgrid/', import.meta.url);
const text = (file: string) => readFileSync(new URL(file, DIR), 'utf8');

interface Vector {
  publicKey: string;
  signature: string;
  timestamp: string;
  payload: string;
}
const vector = (file: string) => JSON.parse(text(file)) as Vector;

// The window is pinned so these tests do not depend on the shipped default.
const WINDOW = { SENDGRID_TOLERANCE_SECONDS: '300' };

async function receiveVector(v: Vector, skewMs = 10_000) {
  const provider = sendgrid([v.publicKey], Number(v.timestamp) * 1000 + skewMs, WINDOW);
  return provider.receive(request(v.payload, { [SIGNATURE_HEADER]: v.signature, [TIMESTAMP_HEADER]: v.timestamp }));
}

describe('SendGrid signed vectors (SendGrid test keys)', () => {
  it('A: the dropped/Bounced Address echo is a hard bounce with echo', async () => {
    const v = vector('vector-a.json');
    const { events } = await receiveVector(v);
    expect(events).toEqual([
      {
        provider: 'sendgrid',
        eventId: 'ZHJvcC0xMDk5NDkxOS1MUnpYbF9OSFN0T0doUTRrb2ZTbV9BLTA',
        recipient: 'hello@world.com',
        kind: 'hard_bounce',
        sender: 'sendgrid',
        occurredAt: 1600112492000,
        detail: { echo: true, diagnosticCode: 'Bounced Address', providerEventType: 'dropped' },
        // sg_message_id `LRzXl_NHStOGhQ4kofSm_A.filterdrecv-…`, smtp-id `<LRzXl_NHStOGhQ4kofSm_A@…>`.
        messageId: 'LRzXl_NHStOGhQ4kofSm_A',
        raw: v.payload.slice(1, -3),
      },
    ]);
  });

  it('B: processed is ignored, a blocked bounce is soft', async () => {
    const { events } = await receiveVector(vector('vector-b.json'));
    expect(events.map((e) => [e.eventId, e.recipient, e.kind, e.occurredAt])).toEqual([
      ['cHJvY2Vzc2VkLTE5OTQyMTEyLXFOd0JMZ1BRUWpXNkRKdktRd1NBYnctMA', 'invalid@gmail.com', 'ignored', 1619651146000],
      ['Ym91bmNlLTAtMTk5NDIxMTItcU53QkxnUFFRalc2REp2S1F3U0Fidy0w', 'invalid@gmail.com', 'soft_bounce', 1619651147000],
    ]);
    expect(events[1]!.detail).toMatchObject({ bounceType: 'blocked', status: '5.2.2', providerEventType: 'bounce' });
    expect(events.map((e) => e.messageId)).toEqual([undefined, 'qNwBLgPQQjW6DJvKQwSAbw']);
  });

  it('C: the legacy bare-object test_event verifies and is acknowledged (ignored), never 4xx', async () => {
    const { events } = await receiveVector(vector('vector-c.json'));
    expect(events.map((e) => [e.kind, e.ignoredReason, e.recipient, e.detail.providerEventType])).toEqual([
      ['ignored', 'unknown SendGrid event type', '', 'test_event'],
    ]);
  });

  it.each(['vector-a.json', 'vector-b.json', 'vector-c.json'])(
    '%s outside a 300 s window is refused (401)',
    async (file) => {
      await expect(receiveVector(vector(file), 301_000)).rejects.toMatchObject({ status: 401 });
    },
  );

  it.each(['vector-a.json', 'vector-b.json', 'vector-c.json'])(
    '%s with one payload byte changed is refused (401)',
    async (file) => {
      const v = vector(file);
      await expect(receiveVector({ ...v, payload: v.payload.replace('"event"', '"Event"') })).rejects.toMatchObject({
        status: 401,
      });
    },
  );
});

type Expected = Pick<NormalizedEvent, 'eventId' | 'kind' | 'detail'> & {
  ignoredReason?: string;
  topic?: string;
  messageId?: string;
  /** SendGrid's events name no sender: every outcome counts as `sendgrid` (docs/reputation.md). */
  sender?: string;
};
/**
 * The documented examples' sg_message_id is `14c5d75ce93.dfd.64b469.filter0001.16648.5515E0B88.0` and
 * their smtp-id `<14c5d75ce93.dfd.64b469@ismtpd-555>`: the message id has dots of its own, and ends
 * where `.filter` begins (the part before the first `.`, `14c5d75ce93`, would cut it short).
 */
const MESSAGE = '14c5d75ce93.dfd.64b469';
const TIME = 1513299569000;

const DOCS: Array<[string, Expected]> = [
  [
    'docs-processed.json',
    {
      eventId: 'rbtnWrG1DVDGGGFHFyun0A==',
      kind: 'ignored',
      ignoredReason: 'lifecycle: accepted for delivery, not an outcome',
      detail: { providerEventType: 'processed' },
    },
  ],
  [
    'docs-dropped.json',
    {
      eventId: 'zmzJhfJgAfUSOW80yEbPyw==',
      kind: 'hard_bounce',
      sender: 'sendgrid',
      messageId: MESSAGE,
      detail: { echo: true, status: '5.0.0', diagnosticCode: 'Bounced Address', providerEventType: 'dropped' },
    },
  ],
  [
    'docs-delivered.json',
    {
      eventId: 'rWVYmVk90MjZJ9iohOBa3w==',
      kind: 'delivered',
      sender: 'sendgrid',
      messageId: MESSAGE,
      detail: { providerEventType: 'delivered' },
    },
  ],
  [
    'docs-deferred.json',
    {
      eventId: 't7LEShmowp86DTdUW8M-GQ==',
      kind: 'ignored',
      ignoredReason: 'temporary deferral: SendGrid keeps retrying',
      detail: { providerEventType: 'deferred' },
    },
  ],
  // No `type` in SendGrid's own bounce example: a 5.x.x status makes it hard (it used to be ignored).
  [
    'docs-bounce.json',
    {
      eventId: '6g4ZI7SA-xmRDv57GoPIPw==',
      kind: 'hard_bounce',
      sender: 'sendgrid',
      messageId: MESSAGE,
      detail: { status: '5.0.0', diagnosticCode: '500 unknown recipient', providerEventType: 'bounce' },
    },
  ],
  [
    'docs-open.json',
    {
      eventId: 'FOTFFO0ecsBE-zxFXfs6WA==',
      kind: 'ignored',
      ignoredReason: 'engagement event',
      detail: { providerEventType: 'open' },
    },
  ],
  [
    'docs-click.json',
    {
      eventId: 'kCAi1KttyQdEKHhdC-nuEA==',
      kind: 'ignored',
      ignoredReason: 'engagement event',
      detail: { providerEventType: 'click' },
    },
  ],
  [
    'docs-spamreport.json',
    {
      eventId: '37nvH5QBz858KGVYCM4uOA==',
      kind: 'complaint',
      sender: 'sendgrid',
      messageId: MESSAGE,
      detail: { providerEventType: 'spamreport' },
    },
  ],
  [
    'docs-unsubscribe.json',
    {
      eventId: 'zz_BjPgU_5pS-J8vlfB1sg==',
      kind: 'unsubscribe',
      messageId: MESSAGE,
      detail: { providerEventType: 'unsubscribe' },
    },
  ],
  // Scoped to the suppression group (asm_group_id): a topic change, never a global one.
  [
    'docs-group-unsubscribe.json',
    {
      eventId: 'ahSCB7xYcXFb-hEaawsPRw==',
      kind: 'unsubscribe',
      messageId: MESSAGE,
      topic: 'sendgrid:group:10',
      detail: { providerEventType: 'group_unsubscribe' },
    },
  ],
  [
    'docs-group-resubscribe.json',
    {
      eventId: 'w_u0vJhLT-OFfprar5N93g==',
      kind: 'subscribe',
      messageId: MESSAGE,
      topic: 'sendgrid:group:10',
      detail: { providerEventType: 'group_resubscribe' },
    },
  ],
];

describe("SendGrid's documented event examples", () => {
  it.each(DOCS)('%s', async (file, expected) => {
    const body = text(file);
    const events = await receiveSigned(body);
    expect(events).toHaveLength(1);
    const { raw, ...event } = events[0]!;
    expect(event).toEqual({ provider: 'sendgrid', recipient: 'example@test.com', occurredAt: TIME, ...expected });
    // raw is the element's exact bytes from the body, not a re-serialization.
    expect(body).toContain(raw);
    expect(JSON.parse(raw)).toEqual((JSON.parse(body) as unknown[])[0]);
  });

  // The drop reasons SendGrid documents: only the three suppression-list reasons echo a suppression.
  it.each([
    ['Bounced Address', 'hard_bounce'],
    ['Spam Reporting Address', 'complaint'],
    ['Unsubscribed Address', 'unsubscribe'],
    ['Invalid SMTPAPI header', 'ignored'],
    ['Spam Content', 'ignored'],
    ['Invalid', 'ignored'],
    ['Recipient List over Package Quota', 'ignored'],
  ])('dropped with reason %j → %s', async (reason, kind) => {
    const body = text('docs-dropped.json').replace('"reason":"Bounced Address"', `"reason":"${reason}"`);
    const [event] = await receiveSigned(body);
    expect(event!.kind).toBe(kind);
    expect(event!.detail.echo).toBe(kind === 'ignored' ? undefined : true);
    if (kind === 'ignored') expect(event!.ignoredReason).toBe('dropped for a reason that is not a suppression echo');
  });

  it('an event type SendGrid adds later (account_status_change) is acknowledged, never 4xx', async () => {
    const body = text('docs-processed.json').replace('"event":"processed"', '"event":"account_status_change"');
    const events = await receiveSigned(body);
    expect(events.map((e) => [e.kind, e.ignoredReason])).toEqual([['ignored', 'unknown SendGrid event type']]);
  });

  it('runs under the injected clock: the same documented body signed an hour ago is refused (401)', async () => {
    const provider = sendgrid([CREDENTIALS.credential], NOW_MS + 3_600_000, WINDOW);
    const body = text('docs-bounce.json');
    const headers = signSendgridBody(body, String(NOW_MS / 1000), CREDENTIALS.signingSecret);
    await expect(provider.receive(request(body, headers))).rejects.toMatchObject({ status: 401 });
  });
});
