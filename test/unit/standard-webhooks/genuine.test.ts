/**
 * Genuine Standard Webhooks / Svix vectors and Resend bodies (test/fixtures/genuine/standard-webhooks
 * and resend, sources in their READMEs) through the real provider under an injected clock. The
 * vectors verify with the libraries' own secrets; the Resend bodies are signed here with the
 * standard-webhooks vector secret and sent with Resend's `svix-*` header names.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { standardSignature } from '../../../lib/demo/standard-webhooks.js';
import { request } from '../support/provider.js';
import { SECRET, standard } from './support.js';

const GENUINE = new URL('../../fixtures/genuine/', import.meta.url);
const text = (path: string) => readFileSync(new URL(path, GENUINE), 'utf8');

interface Vector {
  secret: string;
  msgId: string;
  timestamp: string;
  payload: string;
  signature: string;
}
const vector = (file: string) => JSON.parse(text(`standard-webhooks/${file}`)) as Vector;
// Pinned so these tests do not depend on the shipped default.
const WINDOW = { STANDARD_WEBHOOK_TOLERANCE_SECONDS: '300' };

function receiveVector(v: Vector, skewMs = 30_000, headers: Partial<Record<string, string>> = {}) {
  const provider = standard([v.secret], Number(v.timestamp) * 1000 + skewMs, WINDOW);
  return provider.receive(
    request(v.payload, {
      'webhook-id': v.msgId,
      'webhook-timestamp': v.timestamp,
      'webhook-signature': v.signature,
      ...headers,
    }),
  );
}

describe('Standard Webhooks library vectors', () => {
  it.each(['vector-1.json', 'vector-2.json'])(
    '%s verifies; its body has no event type, so it is acknowledged (ignored)',
    async (file) => {
      const v = vector(file);
      const { events } = await receiveVector(v);
      expect(events.map((e) => [e.eventId, e.kind, e.ignoredReason])).toEqual([
        [v.msgId, 'ignored', 'body has no event type'],
      ]);
    },
  );

  it('vector 2 verifies with the Svix header names too', async () => {
    const v = vector('vector-2.json');
    const svix = await standard([v.secret], Number(v.timestamp) * 1000, WINDOW).receive(
      request(v.payload, { 'svix-id': v.msgId, 'svix-timestamp': v.timestamp, 'svix-signature': v.signature }),
    );
    expect(svix.events.map((e) => [e.eventId, e.kind])).toEqual([[v.msgId, 'ignored']]);
  });

  it("vector 1 with the last signature character changed is refused (401), as in the libraries' tests", async () => {
    const v = vector('vector-1.json');
    await expect(
      receiveVector({ ...v, signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OA=' }),
    ).rejects.toMatchObject({
      status: 401,
    });
  });

  it('vector 1 among bogus v1 and v2 entries still verifies (multi-signature header)', async () => {
    const v = vector('vector-1.json');
    const signature = `v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= v2,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= ${v.signature}`;
    const { events } = await receiveVector({ ...v, signature });
    expect(events).toHaveLength(1);
  });

  it.each(['vector-1.json', 'vector-2.json'])('%s is refused ten minutes after its timestamp (401)', async (file) => {
    await expect(receiveVector(vector(file), 600_000)).rejects.toMatchObject({ status: 401 });
  });
});

const SIGNED_AT = '1732318875'; // 2024-11-22T23:41:15Z, a few seconds after the documented bounce

/** A Resend body exactly as published, sent the way Resend sends it (svix-* headers). */
async function receiveResend(file: string, id = 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W') {
  const body = text(`resend/${file}`);
  const headers = {
    'svix-id': id,
    'svix-timestamp': SIGNED_AT,
    'svix-signature': standardSignature(SECRET, id, SIGNED_AT, body),
  };
  const { events } = await standard([SECRET], Number(SIGNED_AT) * 1000, WINDOW).receive(request(body, headers));
  return { events, body, id };
}

describe('Resend bodies', () => {
  it('the documented email.bounced (new shape, Permanent/Suppressed) is a hard bounce', async () => {
    const { events, body, id } = await receiveResend('docs-email-bounced.json');
    expect(events).toEqual([
      {
        provider: 'standard',
        eventId: `${id}:delivered@resend.dev`,
        recipient: 'delivered@resend.dev',
        kind: 'hard_bounce',
        // Resend's documented `from`, `Acme <onboarding@resend.dev>`.
        sender: 'resend.dev',
        occurredAt: Date.parse('2024-11-22T23:41:12.126Z'),
        detail: {
          providerEventType: 'email.bounced',
          bounceType: 'Permanent',
          bounceSubType: 'Suppressed',
          diagnosticCode:
            "The recipient's email address is on the suppression list because it has a recent history of producing hard bounces.",
        },
        messageId: '56761188-7520-42d8-8898-ff6fc54ce618',
        raw: body,
      },
    ]);
  });

  it('the older email.bounced shape (bounce.message only, no type) is a hard bounce too', async () => {
    const { events } = await receiveResend('email-bounced-message-only.json');
    expect(events.map((e) => [e.recipient, e.kind, e.detail])).toEqual([
      [
        'delivered@resend.dev',
        'hard_bounce',
        {
          providerEventType: 'email.bounced',
          diagnosticCode:
            "The recipient's email address is on the suppression list because it has a recent history of producing hard bounces.",
        },
      ],
    ]);
  });

  it.each([
    ['Transient', 'soft_bounce'],
    ['Undetermined', 'soft_bounce'],
    ['Permanent', 'hard_bounce'],
  ])('the documented email.bounced with bounce.type %s → %s', async (type, kind) => {
    const body = text('resend/docs-email-bounced.json').replace('"type": "Permanent"', `"type": "${type}"`);
    const id = 'msg_typed';
    const headers = {
      'svix-id': id,
      'svix-timestamp': SIGNED_AT,
      'svix-signature': standardSignature(SECRET, id, SIGNED_AT, body),
    };
    const { events } = await standard([SECRET], Number(SIGNED_AT) * 1000, WINDOW).receive(request(body, headers));
    expect(events.map((e) => e.kind)).toEqual([kind]);
  });

  it("the official skills doc's email.delivered is a delivery", async () => {
    const { events, id } = await receiveResend('skills-email-delivered.json');
    expect(events.map((e) => [e.eventId, e.recipient, e.kind, e.occurredAt])).toEqual([
      [`${id}:delivered@resend.dev`, 'delivered@resend.dev', 'delivered', Date.parse('2024-01-15T12:00:00.000Z')],
    ]);
  });

  // Used by the topics work: only what holds today.
  it('contact.created with unsubscribed:false is ignored', async () => {
    const { events } = await receiveResend('docs-contact-created.json');
    expect(events.map((e) => [e.recipient, e.kind, e.ignoredReason])).toEqual([
      ['steve.wozniak@gmail.com', 'ignored', 'contact change without unsubscribe'],
    ]);
  });

  it('contact.updated with unsubscribed:true is an unsubscribe (its invalid data.created_at is never read)', async () => {
    const { events, id } = await receiveResend('changelog-contact-updated.json');
    expect(events.map((e) => [e.eventId, e.recipient, e.kind, e.occurredAt])).toEqual([
      [
        `${id}:steve.wozniak@gmail.com`,
        'steve.wozniak@gmail.com',
        'unsubscribe',
        Date.parse('2024-10-11T23:47:56.678Z'),
      ],
    ]);
  });

  it.each(['email.received', 'suppression.added', 'domain.updated', 'email.something_new'])(
    'an event type Ratchet does not track (%s) is acknowledged as ignored, never 4xx',
    async (type) => {
      const body = text('resend/docs-email-bounced.json').replace('"type": "email.bounced"', `"type": "${type}"`);
      const id = 'msg_other';
      const headers = {
        'svix-id': id,
        'svix-timestamp': SIGNED_AT,
        'svix-signature': standardSignature(SECRET, id, SIGNED_AT, body),
      };
      const { events } = await standard([SECRET], Number(SIGNED_AT) * 1000, WINDOW).receive(request(body, headers));
      expect(events.map((e) => [e.kind, e.ignoredReason])).toEqual([['ignored', `event type ${type} is not tracked`]]);
    },
  );
});
