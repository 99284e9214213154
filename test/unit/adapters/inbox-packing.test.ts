/**
 * Version-2 packing gives back the raw payload byte for byte and the events whole, whatever the payload
 * is (an SNS envelope or not, a signature that is not canonical base64, whitespace the split cannot
 * restore, text beyond ASCII), and keeps an event id it cannot derive.
 */
import { describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../../lambdas/adapters/inbox-codec.js';
import { packBody, packEvents, unpackBody } from '../../../lambdas/adapters/inbox-packing.js';
import { joinWhitespace, splitWhitespace } from '../../../lambdas/adapters/json-whitespace.js';
import { contentEventId } from '../../../lambdas/core/pipeline/content-key.js';

const base = {
  provider: 'ses',
  recipient: 'a@example.com',
  kind: 'hard_bounce' as const,
  occurredAt: 1_453_906_778_237,
  detail: { bounceType: 'Permanent', providerEventType: 'Bounce' },
  messageId: 'm-1',
};
const keyed = (recipient: string): StoredEvent => {
  const event = { ...base, recipient, eventId: '', raw: '' };
  return { ...base, recipient, eventId: contentEventId(event) };
};

const envelope = (message: string, signature = 'c2lnbmF0dXJlIGJ5dGVzIGhlcmUh') =>
  `{\n  "Type" : "Notification",\n  "Message" : ${JSON.stringify(message)},\n  "Signature" : "${signature}"\n}`;

describe('packBody / unpackBody', () => {
  const events = [keyed('a@example.com'), keyed('b@example.com')];
  const pk = `ses#${events[0]!.eventId}`;

  it.each([
    ['a pretty-printed SES message', envelope('{\n   "a" : [ 1, 2 ],\n\t"b":"x y"\n}  ')],
    ['a compact one', envelope('{"a":[1,2],"b":"x y"}')],
    ['a message that is not JSON', envelope('hello   world  "unterminated')],
    ['bare words the split would merge', envelope('true false')],
    ['a signature that is not canonical base64', envelope('{}', 'not base64!!')],
    ['a body that is not JSON at all', 'line\nbreaks\r\n and\ttabs'],
    ['text beyond ASCII', envelope('{ "é" : "ünïcödé ✓ 𝄞 \\"q\\" \\\\ " }')],
    ['an empty body', ''],
  ])('%s: byte for byte', (_, raw) => {
    const back = unpackBody(packBody(events, raw, pk), pk);
    expect(back.raw).toBe(raw);
    expect(back.events).toEqual(events);
  });

  it('leaves out the provider and every id it can derive, and keeps one it cannot', () => {
    const foreign = { ...keyed('c@example.com'), eventId: 'provider-own-id' };
    const packed = packEvents([events[0]!, events[1]!, foreign], pk);
    expect(packed.map((e) => ('eventId' in e ? e.eventId : undefined))).toEqual([
      undefined,
      undefined,
      'provider-own-id',
    ]);
    expect(packed.some((e) => 'provider' in e)).toBe(false);
    const raw = envelope('{}');
    expect(unpackBody(packBody([events[0]!, foreign], raw, pk), pk).events).toEqual([events[0], foreign]);
  });

  it('refuses an event of another provider than the key says', () => {
    expect(() => packEvents([{ ...events[0]!, provider: 'sendgrid' }], pk)).toThrow(/holds an event of sendgrid/);
  });

  it('is smaller than version 1 for a signed envelope (the signature as bytes)', async () => {
    const { encodePayload } = await import('../../../lambdas/adapters/inbox-codec.js');
    const signature = Buffer.alloc(256, 7).toString('base64');
    const raw = envelope('{"notificationType":"Bounce"}', signature);
    expect(packBody(events, raw, pk).length).toBeLessThan(encodePayload(events, raw, 1).length);
  });
});

describe('splitWhitespace / joinWhitespace', () => {
  it.each(['', '  ', '{ "a" : 1 }', '[1,\n  2]', '"a b"  "c"', 'x'])('%j round-trips', (text) => {
    const { compact, gaps } = splitWhitespace(text);
    expect(compact).not.toMatch(/^\s|\s$/);
    expect(joinWhitespace(compact, gaps)).toBe(text);
  });
});
