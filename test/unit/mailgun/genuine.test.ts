/**
 * Genuine signed Mailgun webhook bodies (test/fixtures/genuine/mailgun, sources in its README): the
 * Symfony Mailgun bridge's fixtures, each signed with the signing key its test suite publishes, run
 * byte for byte through the real provider under an injected clock (10 s after each signature).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { NormalizedEvent } from '../../../lambdas/core/event.js';
import { mailgun } from './support.js';

const DIR = new URL('../../fixtures/genuine/mailgun/', import.meta.url);
/** From Symfony's MailgunRequestParserTest::getSecret(). */
const SYMFONY_KEY = 'key-0p6mqbf74lb20gzq9f4dhpn9rg3zyk26';
// Pinned so these tests do not depend on the shipped default.
const WINDOW = { MAILGUN_TOLERANCE_SECONDS: '300' };

function load(file: string) {
  const text = readFileSync(new URL(file, DIR), 'utf8');
  const body = JSON.parse(text) as {
    signature: { timestamp: string };
    'event-data': { id: string; timestamp: number };
  };
  return { text, signedAtMs: Number(body.signature.timestamp) * 1000, data: body['event-data'] };
}

async function receive(file: string, skewMs = 10_000) {
  const { text, signedAtMs } = load(file);
  const { provider } = mailgun({ credentials: [SYMFONY_KEY], nowMs: signedAtMs + skewMs, settings: WINDOW });
  return provider.receive({ body: Buffer.from(text, 'utf8'), headers: { 'content-type': 'application/json' } });
}

/** `sender`: the From header's domain (docs/reputation.md), on the outcomes of a send only. */
type Expected = Pick<NormalizedEvent, 'kind' | 'detail'> & {
  ignoredReason?: string;
  messageId?: string;
  sender?: string;
};

const CASES: Array<[string, Expected]> = [
  [
    'symfony-delivered-messages.json',
    {
      kind: 'delivered',
      sender: 'app.symfony.com',
      messageId: '20130503182626.18666.16540@app.symfony.com',
      detail: { status: '250', diagnosticCode: 'OK', providerEventType: 'delivered' },
    },
  ],
  [
    'symfony-permanent-failure.json',
    {
      kind: 'hard_bounce',
      sender: 'app.symfony.com',
      messageId: '20130503192659.13651.20287@app.symfony.com',
      detail: {
        status: '550',
        diagnosticCode: 'No Such User Here',
        bounceType: 'permanent',
        bounceSubType: 'bounce',
        providerEventType: 'failed',
      },
    },
  ],
  [
    'symfony-permanent-failure-no-description.json',
    {
      kind: 'hard_bounce',
      sender: 'app.symfony.com',
      messageId: '20130503192659.13651.20287@app.symfony.com',
      detail: {
        status: '550',
        diagnosticCode: 'No Such User Here',
        bounceType: 'permanent',
        bounceSubType: 'bounce',
        providerEventType: 'failed',
      },
    },
  ],
  // Mailgun code 605: never attempted, the address is on Mailgun's bounce list. An echo.
  [
    'symfony-suppression-failure.json',
    {
      kind: 'hard_bounce',
      sender: 'app.symfony.com',
      messageId: '20130503192659.13651.20287@app.symfony.com',
      detail: {
        status: '605',
        diagnosticCode: 'Not delivering to previously bounced address',
        bounceType: 'permanent',
        bounceSubType: 'suppress-bounce',
        providerEventType: 'failed',
        echo: true,
      },
    },
  ],
  [
    'symfony-temporary-failure.json',
    {
      kind: 'soft_bounce',
      sender: 'app.symfony.com',
      messageId: '20130503182626.18666.16540@app.symfony.com',
      detail: {
        status: '4.2.2',
        diagnosticCode:
          '4.2.2 The email account that you tried to reach is over quota. Please direct\n4.2.2 the recipient to\n4.2.2  https://support.example.com/mail/?p=422',
        bounceType: 'temporary',
        bounceSubType: 'generic',
        providerEventType: 'failed',
      },
    },
  ],
  [
    'symfony-spam-complaints.json',
    {
      kind: 'complaint',
      sender: 'app.symfony.com',
      messageId: '20110215055645.25246.63817@app.symfony.com',
      detail: { providerEventType: 'complained' },
    },
  ],
  [
    'symfony-unsubscribes.json',
    {
      kind: 'unsubscribe',
      messageId: '20130503182626.18666.16540@app.symfony.com',
      detail: { providerEventType: 'unsubscribed' },
    },
  ],
  [
    'symfony-accepted.json',
    {
      kind: 'ignored',
      ignoredReason: 'lifecycle: accepted for delivery, not an outcome',
      detail: { providerEventType: 'accepted' },
    },
  ],
  [
    'symfony-opens.json',
    { kind: 'ignored', ignoredReason: 'engagement event', detail: { providerEventType: 'opened' } },
  ],
  [
    'symfony-clicks.json',
    { kind: 'ignored', ignoredReason: 'engagement event', detail: { providerEventType: 'clicked' } },
  ],
];

describe('Symfony Mailgun fixtures (signed with the key Symfony publishes)', () => {
  it.each(CASES)('%s', async (file, expected) => {
    const { text, data } = load(file);
    const { events } = await receive(file);
    expect(events).toEqual([
      {
        provider: 'mailgun',
        eventId: `${data.id}:${String(data.timestamp)}`,
        recipient: 'alice@example.com',
        occurredAt: Math.round(data.timestamp * 1000),
        raw: text,
        ...expected,
      },
    ]);
  });

  it.each(CASES.map(([file]) => file))('%s is refused under another signing key (401)', async (file) => {
    const { text, signedAtMs } = load(file);
    const { provider } = mailgun({ credentials: ['key-not-the-one-that-signed'], nowMs: signedAtMs, settings: WINDOW });
    await expect(provider.receive({ body: Buffer.from(text, 'utf8'), headers: {} })).rejects.toMatchObject({
      status: 401,
    });
  });

  it('a genuine body is refused outside a 300 s window (401): the injected clock is what lets it pass', async () => {
    await expect(receive('symfony-permanent-failure.json', 301_000)).rejects.toMatchObject({ status: 401 });
  });

  it('a Mailgun event type Ratchet does not know (stored, rejected, or a new one) is acknowledged, never 4xx', async () => {
    for (const type of ['stored', 'rejected', 'list_member_uploaded']) {
      const { text, signedAtMs } = load('symfony-accepted.json');
      // Mailgun signs timestamp + token only, so the signature still holds.
      const body = text.replace(/"event":\s*"accepted"/, `"event":"${type}"`);
      expect(body).not.toBe(text);
      const { provider } = mailgun({ credentials: [SYMFONY_KEY], nowMs: signedAtMs, settings: WINDOW });
      const { events } = await provider.receive({ body: Buffer.from(body, 'utf8'), headers: {} });
      expect([type, events.map((e) => e.kind)]).toEqual([type, ['ignored']]);
    }
  });
});
