/**
 * The provider's message id in the event model: the shared rule (messageIdField), SendGrid's cut,
 * the generic contract's optional `message_id` (a bad one is a 400, and the edge writes nothing),
 * and where each provider leaves it out.
 */
import { describe, expect, it } from 'vitest';
import { MalformedRequestError } from '../../../lambdas/core/errors.js';
import { MAX_MESSAGE_ID_LENGTH, messageIdField } from '../../../lambdas/core/event.js';
import { genericProvider } from '../../../lambdas/core/providers/generic/index.js';
import { mailgunEvent } from '../../../lambdas/core/providers/mailgun/map.js';
import { parseSendgridBatch, sendgridMessageId } from '../../../lambdas/core/providers/sendgrid/map.js';
import { standardWebhookEvents } from '../../../lambdas/core/providers/standard-webhooks/map.js';
import { event, generic, NOW_MS, SECRET, signedRequest } from '../generic/support.js';
import { edgeWith } from '../pipeline/fakes.js';

describe('messageIdField', () => {
  it.each([
    ['an RFC 5322 id', '20130503182626.18666.16540@app.symfony.com', '20130503182626.18666.16540@app.symfony.com'],
    ['the longest accepted', 'x'.repeat(MAX_MESSAGE_ID_LENGTH), 'x'.repeat(MAX_MESSAGE_ID_LENGTH)],
    ['one character too long', 'x'.repeat(MAX_MESSAGE_ID_LENGTH + 1), undefined],
    ['empty', '', undefined],
    ['with a space', 'a b', undefined],
    ['with a control character', 'a\u0000b', undefined],
    ['non-ASCII', 'café', undefined],
    ['a number', 7, undefined],
    ['null', null, undefined],
    ['the printable edges', '!~', '!~'],
  ])('%s', (_name, value, expected) => {
    expect(messageIdField(value)).toBe(expected);
  });
});

describe('SendGrid: the message id is sg_message_id up to its .filter suffix', () => {
  it.each([
    [
      'a current id (the signed vectors)',
      'qNwBLgPQQjW6DJvKQwSAbw.filterdrecv-canary-547b64655b-cw6zx-1-6089EA4A-56.0',
      'qNwBLgPQQjW6DJvKQwSAbw',
    ],
    [
      'an older id with dots of its own (the documented examples)',
      '14c5d75ce93.dfd.64b469.filter0001.16648.5515E0B88.0',
      '14c5d75ce93.dfd.64b469',
    ],
    [
      'the same message on its processed event',
      '14c5d75ce93.dfd.64b469.filter0001.16648.5515E0B88.000000000000000000000',
      '14c5d75ce93.dfd.64b469',
    ],
    ['no filter suffix: the whole value', 'XBg2anf2TqCy6WXKQFhieQ', 'XBg2anf2TqCy6WXKQFhieQ'],
    ['nothing before the suffix', '.filter0001', undefined],
    ['not a string', 12, undefined],
  ])('%s', (_name, value, expected) => {
    expect(sendgridMessageId(value)).toBe(expected);
  });

  it('a delayed bounce without sg_message_id has none, and an ignored event never carries one', () => {
    const body = JSON.stringify([
      { email: 'a@example.com', event: 'bounce', type: 'blocked', sg_event_id: 'e1', timestamp: 1700000000 },
      { email: 'a@example.com', event: 'open', sg_event_id: 'e2', sg_message_id: 'm.filter1', timestamp: 1700000000 },
    ]);
    expect(parseSendgridBatch(body).map((e) => [e.kind, e.messageId])).toEqual([
      ['soft_bounce', undefined],
      ['ignored', undefined],
    ]);
  });
});

describe('Mailgun and Resend leave it out where there is none', () => {
  const data = (extra: Record<string, unknown>) => ({
    id: 'id-1',
    timestamp: 1700000000.5,
    event: 'failed',
    severity: 'temporary',
    recipient: 'a@example.com',
    ...extra,
  });

  it.each([
    ['no message', {}],
    ['no headers', { message: {} }],
    ['headers not an object', { message: { headers: 'x' } }],
    ['a message-id that is not one', { message: { headers: { 'message-id': 'has space' } } }],
  ])('Mailgun: %s', (_name, extra) => {
    const e = mailgunEvent(data(extra), '{}');
    expect(e.kind).toBe('soft_bounce');
    expect(e).not.toHaveProperty('messageId');
  });

  it('Mailgun: an ignored event does not carry it', () => {
    expect(
      mailgunEvent(data({ event: 'opened', message: { headers: { 'message-id': 'm@x' } } }), '{}'),
    ).not.toHaveProperty('messageId');
  });

  it('Resend: a contact event is about no email', () => {
    const body = {
      type: 'contact.updated',
      created_at: '2025-01-15T11:59:58.123Z',
      data: { email: 'a@example.com', unsubscribed: true, email_id: 'not-an-email-event' },
    };
    const [e] = standardWebhookEvents(body, JSON.stringify(body), 'msg_1', NOW_MS);
    expect(e!.kind).toBe('unsubscribe');
    expect(e).not.toHaveProperty('messageId');
  });
});

describe('generic contract: message_id', () => {
  it('is optional; absent or null is no message id', async () => {
    for (const fields of [event(), event({ message_id: null })]) {
      const { events } = await generic().receive(signedRequest(fields));
      expect(events[0]).not.toHaveProperty('messageId');
    }
  });

  it('is carried as sent', async () => {
    const { events } = await generic().receive(
      signedRequest(event({ type: 'soft_bounce', message_id: '<20240101.1@mail.example.com>' })),
    );
    expect(events[0]!.messageId).toBe('<20240101.1@mail.example.com>');
  });

  it.each([7, '', 'two words', 'x'.repeat(257), ['m'], { id: 'm' }, true])(
    'a message_id of %j is a 400',
    async (message_id) => {
      await expect(generic().receive(signedRequest(event({ message_id })))).rejects.toThrow(MalformedRequestError);
      await expect(generic().receive(signedRequest(event({ message_id })))).rejects.toThrow(
        'message_id is not 1 to 256 printable ASCII characters',
      );
    },
  );

  it('through the edge: a bad type is answered 400 and nothing is sent or stored', async () => {
    const { edge, inbox, queue } = edgeWith({
      providers: [genericProvider],
      secrets: { credentials: async () => [SECRET] },
      now: () => NOW_MS,
      maxBodyBytes: 65_536,
    });
    const bad = signedRequest(event({ message_id: 42 }));
    expect(await edge.receive('generic', bad)).toEqual({ status: 400, body: { error: 'malformed_request' } });
    expect(queue.sent).toEqual([]);
    expect(inbox.rows.size).toBe(0);
    const good = signedRequest(event({ id: 'evt_2', message_id: 'm-1' }));
    expect(await edge.receive('generic', good)).toMatchObject({ status: 200, body: { admitted: 1 } });
    expect(queue.sent.map((m) => m.event.messageId)).toEqual(['m-1']);
  });
});
