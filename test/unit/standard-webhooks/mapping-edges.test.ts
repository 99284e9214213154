/**
 * The edges of the Resend-vocabulary mapping that mapping.test.ts does not reach: untyped bounces
 * (null, blank), which strings count as a display-form address, diagnosticCode lists that are not
 * all text, bounce detail only on email.bounced, and the detail kept on the invalid-recipient event.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { INVALID_RECIPIENT_REASON } from '../../../lambdas/core/classification.js';
import { standardWebhookEvents } from '../../../lambdas/core/providers/standard-webhooks/map.js';

const SIGNED_AT_MS = Date.parse('2026-03-01T12:00:00Z');
const RAW = '{"raw":"body"}';

function events(type: string, data: Record<string, unknown>) {
  return standardWebhookEvents({ type, data }, RAW, 'msg_1', SIGNED_AT_MS);
}

function recipientsOf(to: unknown) {
  return events('email.delivered', { to }).map((e) => [e.kind, e.recipient]);
}

describe('bounce kind', () => {
  it.each([
    ['null', null],
    ['blank', '   '],
    ['a tab', '\t'],
  ])('a %s bounce.type is untyped: hard_bounce (Resend documents email.bounced as permanent)', (_, type) => {
    expect(events('email.bounced', { to: ['a@example.com'], bounce: { type } }).map((e) => e.kind)).toEqual([
      'hard_bounce',
    ]);
  });
});

describe('display-form addresses', () => {
  it('reads the address in angle brackets followed by trailing whitespace', () => {
    expect(recipientsOf(['Jane <Jane@Example.com>  '])).toEqual([['delivered', 'jane@example.com']]);
  });

  it('does not read angle brackets that are not at the end of the value', () => {
    expect(recipientsOf(['<a@example.com> and more'])).toEqual([['ignored', '']]);
  });

  it('does not look inside a value that is not a string (a nested list is not an address)', () => {
    expect(recipientsOf([['Jane <jane@example.com>']])).toEqual([['ignored', '']]);
  });
});

describe('bounce diagnostic text', () => {
  const diagnostic = (bounce: Record<string, unknown>) =>
    events('email.bounced', { to: ['a@example.com'], bounce: { type: 'Permanent', ...bounce } })[0]!.detail
      .diagnosticCode;

  it('joins a list of text lines with "; "', () => {
    expect(diagnostic({ diagnosticCode: ['smtp; 550 5.1.1', 'user unknown'], message: 'm' })).toBe(
      'smtp; 550 5.1.1; user unknown',
    );
  });

  it('takes a single string as it is', () => {
    expect(diagnostic({ diagnosticCode: 'smtp; 550 5.1.1 user unknown', message: 'm' })).toBe(
      'smtp; 550 5.1.1 user unknown',
    );
  });

  it.each([
    ['an empty list', []],
    ['a list with a number in it', ['smtp; 550', 5]],
    ['a list of numbers', [550, 551]],
  ])('falls back to bounce.message for %s', (_, diagnosticCode) => {
    expect(diagnostic({ diagnosticCode, message: 'No such user' })).toBe('No such user');
  });

  it('an empty list without a message leaves no diagnosticCode at all', () => {
    const [event] = events('email.bounced', {
      to: ['a@example.com'],
      bounce: { type: 'Permanent', diagnosticCode: [] },
    });
    expect(event!.detail).toStrictEqual({ providerEventType: 'email.bounced', bounceType: 'Permanent' });
  });
});

describe('bounce detail', () => {
  const bounce = { type: 'Permanent', subType: 'General', message: 'No such user', diagnosticCode: ['smtp; 550'] };

  it.each(['email.complained', 'email.delivered', 'email.unsubscribed', 'email.opened'])(
    'is read only on email.bounced: %s keeps just its type',
    (type) => {
      for (const event of events(type, { to: ['a@example.com'], bounce })) {
        expect(event.detail).toStrictEqual({ providerEventType: type });
      }
    },
  );

  it('is read on email.bounced', () => {
    expect(events('email.bounced', { to: ['a@example.com'], bounce })[0]!.detail).toStrictEqual({
      providerEventType: 'email.bounced',
      bounceType: 'Permanent',
      bounceSubType: 'General',
      diagnosticCode: 'smtp; 550',
    });
  });
});

describe('the invalid-recipient event of an actionable request', () => {
  it('keeps the detail, the time and the raw body of the request', () => {
    const list = standardWebhookEvents(
      {
        type: 'email.bounced',
        created_at: '2026-02-12T10:00:00.000Z',
        data: { to: ['ok@example.com', 'not an address'], bounce: { type: 'hard', message: 'gone' } },
      },
      RAW,
      'msg_1',
      SIGNED_AT_MS,
    );
    const detail = { providerEventType: 'email.bounced', bounceType: 'hard', diagnosticCode: 'gone' };
    expect(list).toStrictEqual([
      {
        provider: 'standard',
        eventId: 'msg_1:ok@example.com',
        recipient: 'ok@example.com',
        kind: 'hard_bounce',
        occurredAt: Date.parse('2026-02-12T10:00:00.000Z'),
        detail,
        raw: RAW,
        // No `data.from`: the provider as a whole.
        sender: 'standard',
      },
      {
        provider: 'standard',
        eventId: 'msg_1',
        recipient: '',
        kind: 'ignored',
        ignoredReason: INVALID_RECIPIENT_REASON,
        occurredAt: Date.parse('2026-02-12T10:00:00.000Z'),
        detail,
        raw: RAW,
      },
    ]);
  });
});

describe('the sender of a complaint', () => {
  // Resend's documented email.bounced body (test/fixtures/genuine/resend/README.md), as the complaint
  // Resend sends for the same email: the same data, `from` included, without the bounce.
  const bounced = JSON.parse(
    readFileSync(new URL('../../fixtures/genuine/resend/docs-email-bounced.json', import.meta.url), 'utf8'),
  ) as { data: Record<string, unknown> };
  const { bounce: _, ...data } = bounced.data;

  it('email.complained names the domain of data.from, as delivered and bounced do', () => {
    const body = { ...bounced, type: 'email.complained', data };
    expect(standardWebhookEvents(body, RAW, 'msg_1', SIGNED_AT_MS)).toStrictEqual([
      {
        provider: 'standard',
        eventId: 'msg_1:delivered@resend.dev',
        recipient: 'delivered@resend.dev',
        kind: 'complaint',
        occurredAt: Date.parse('2024-11-22T23:41:12.126Z'),
        detail: { providerEventType: 'email.complained' },
        raw: RAW,
        messageId: '56761188-7520-42d8-8898-ff6fc54ce618',
        sender: 'resend.dev',
      },
    ]);
  });
});
