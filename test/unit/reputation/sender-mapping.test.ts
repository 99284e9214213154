/**
 * Each provider's sender and denominator mapping (docs/reputation.md's table), on the genuine examples
 * in test/fixtures/genuine, run through the mappers the edge runs after verification: which field gives
 * the sender, what it falls back to, and which events carry one (the outcomes that count) and which
 * carry none (so they count nothing).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { NormalizedEvent } from '../../../lambdas/core/event.js';
import { genericEvent } from '../../../lambdas/core/providers/generic/map.js';
import { mailgunEvent } from '../../../lambdas/core/providers/mailgun/map.js';
import { postmarkEvent } from '../../../lambdas/core/providers/postmark/map.js';
import { parseSendgridBatch } from '../../../lambdas/core/providers/sendgrid/map.js';
import { sesEventsFromMessage } from '../../../lambdas/core/providers/ses/map.js';
import { standardWebhookEvents } from '../../../lambdas/core/providers/standard-webhooks/map.js';
import { tally } from '../../../lambdas/core/reputation/counts.js';

const fixture = (path: string) => readFileSync(new URL(`../../fixtures/genuine/${path}`, import.meta.url), 'utf8');
const json = (path: string) => JSON.parse(fixture(path)) as Record<string, any>;
const senders = (events: readonly NormalizedEvent[]) => events.map((e) => [e.kind, e.sender]);

const ses = (doc: Record<string, any>) =>
  sesEventsFromMessage(JSON.stringify(doc), { provider: 'ses', snsMessageId: 'm', snsTimestampMs: 0, raw: '' });

describe('SES: ses:from-domain, else the domain of mail.source, else the configuration set, else ses', () => {
  it('every outcome of the documented examples names example.com; Send, Open and the rest name none', () => {
    for (const file of [
      'event-delivery',
      'event-bounce',
      'event-complaint',
      'notification-delivery',
      'notification-bounce-with-dsn',
    ])
      for (const event of ses(json(`ses/${file}.json`))) expect([file, event.sender]).toEqual([file, 'example.com']);
    for (const file of [
      'event-send',
      'event-open',
      'event-click',
      'event-reject',
      'event-delivery-delay',
      'event-subscription',
    ])
      for (const event of ses(json(`ses/${file}.json`))) expect([file, event.sender]).toEqual([file, undefined]);
  });

  it('the from-domain tag wins over mail.source, which wins over the configuration set', () => {
    const doc = json('ses/event-delivery.json');
    doc.mail.tags['ses:from-domain'] = ['News.Example.ORG'];
    doc.mail.source = 'Bounce <b@mailer.example.net>';
    expect(ses(doc)[0]!.sender).toBe('news.example.org');
    delete doc.mail.tags['ses:from-domain'];
    expect(ses(doc)[0]!.sender).toBe('mailer.example.net');
    doc.mail.source = 'not an address';
    expect(ses(doc)[0]!.sender).toBe('ses:configuration-set/ConfigSet');
    delete doc.mail.tags['ses:configuration-set'];
    expect(ses(doc)[0]!.sender).toBe('ses');
  });
});

describe('Postmark: the server and message stream (Delivery names no From)', () => {
  it('Delivery, Bounce and SpamComplaint name their stream; SubscriptionChange, Open and Click none', () => {
    const event = (file: string) => postmarkEvent(json(`postmark/${file}.json`), '');
    expect(event('symfony-delivery').sender).toBe('postmark:stream/23/outbound');
    expect(event('symfony-bounce').sender).toBe('postmark:stream/1234/outbound');
    expect(event('symfony-spam-complaint').sender).toBe('postmark:stream/1234/outbound');
    // A suppression after a Bounce record already counted: no second count.
    expect([event('symfony-subscription-change').kind, event('symfony-subscription-change').sender]).toEqual([
      'hard_bounce',
      undefined,
    ]);
    expect(event('symfony-open').sender).toBeUndefined();
    const noStream = { ...json('postmark/symfony-delivery.json'), MessageStream: undefined };
    expect(postmarkEvent(noStream, '').sender).toBe('postmark');
  });
});

describe('Mailgun: the domain of message.headers.from, else of envelope.sender, else mailgun', () => {
  it('delivered, failed and complained name the From domain; unsubscribes and opens none', () => {
    const event = (file: string) => mailgunEvent(json(`mailgun/${file}.json`)['event-data'], '');
    for (const file of [
      'symfony-delivered-messages',
      'symfony-permanent-failure',
      'symfony-temporary-failure',
      'symfony-spam-complaints',
    ])
      expect([file, event(file).sender]).toEqual([file, 'app.symfony.com']);
    expect(event('symfony-unsubscribes').sender).toBeUndefined();
    expect(event('symfony-opens').sender).toBeUndefined();
    const data = json('mailgun/symfony-permanent-failure.json')['event-data'];
    data.message.headers.from = 'nobody';
    data.envelope.sender = 'bounce+x@mg.example.com';
    expect(mailgunEvent(data, '').sender).toBe('mg.example.com');
    delete data.envelope;
    expect(mailgunEvent(data, '').sender).toBe('mailgun');
  });
});

describe('SendGrid: the Event Webhook names no sender, so sendgrid as a whole', () => {
  it('delivered, bounce and spamreport count as sendgrid; processed, deferred and opens name none', () => {
    const one = (file: string) => parseSendgridBatch(fixture(`sendgrid/${file}.json`));
    expect(senders(one('docs-delivered'))).toEqual([['delivered', 'sendgrid']]);
    expect(senders(one('docs-bounce'))).toEqual([['hard_bounce', 'sendgrid']]);
    expect(senders(one('docs-spamreport'))).toEqual([['complaint', 'sendgrid']]);
    for (const file of ['docs-processed', 'docs-deferred', 'docs-open', 'docs-unsubscribe'])
      expect(one(file).every((e) => e.sender === undefined)).toBe(true);
  });
});

describe('Resend (Standard Webhooks): the domain of data.from', () => {
  it('email.delivered and email.bounced name it; contact events none', () => {
    const events = (file: string) => standardWebhookEvents(json(`resend/${file}.json`), '', 'msg', 0);
    expect(senders(events('skills-email-delivered'))).toEqual([['delivered', 'acme.com']]);
    expect(senders(events('docs-email-bounced'))).toEqual([['hard_bounce', 'resend.dev']]);
    expect(events('changelog-contact-updated').every((e) => e.sender === undefined)).toBe(true);
  });
});

describe('generic: the optional sender field', () => {
  const body = (extra: Record<string, unknown>) => ({
    id: 'e1',
    type: 'delivered',
    recipient: 'a@example.com',
    ...extra,
  });
  it('an address or a domain names the domain; absent names the provider; garbage is refused (400)', () => {
    expect(genericEvent(body({ sender: 'News <n@Example.com>' }), '', 'e1', 0).sender).toBe('example.com');
    expect(genericEvent(body({ sender: 'example.org' }), '', 'e1', 0).sender).toBe('example.org');
    expect(genericEvent(body({}), '', 'e1', 0).sender).toBe('generic');
    expect(() => genericEvent(body({ sender: 'not a domain' }), '', 'e1', 0)).toThrow(/sender/);
    expect(
      genericEvent({ ...body({ sender: 'example.org' }), type: 'unsubscribe' }, '', 'e1', 0).sender,
    ).toBeUndefined();
  });
});

describe('the denominator: delivered + bounced + complained, echoes and non-outcomes excluded', () => {
  it('tallies one group per provider and sender, in the hour of admission', () => {
    const events = [
      ...ses(json('ses/event-delivery.json')),
      ...ses(json('ses/event-bounce.json')),
      ...ses(json('ses/event-complaint.json')),
      ...ses(json('ses/event-send.json')),
      ...parseSendgridBatch(fixture('sendgrid/docs-dropped.json')),
      postmarkEvent(json('postmark/symfony-subscription-change.json'), ''),
    ];
    const at = Date.UTC(2026, 0, 1, 10, 59, 59);
    expect(tally(events, at)).toEqual([
      {
        provider: 'ses',
        sender: 'example.com',
        hourMs: Date.UTC(2026, 0, 1, 10),
        delivered: 1,
        hardBounced: 1,
        softBounced: 0,
        complained: 1,
      },
    ]);
  });
});
