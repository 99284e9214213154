/**
 * Version-2 packing gives back the raw payload byte for byte and the events whole, whatever the payload
 * is (an SNS envelope or not, a signature that is not canonical base64, whitespace the split cannot
 * restore, text beyond ASCII), and keeps an event id it cannot derive.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { deflateWithDictionary, type StoredEvent } from '../../../lambdas/adapters/inbox-codec.js';
import {
  PACKING_DICTIONARY,
  packBody,
  packEvents,
  packParts,
  unpackBody,
} from '../../../lambdas/adapters/inbox-packing.js';
import { joinWhitespace, splitWhitespace } from '../../../lambdas/adapters/json-whitespace.js';
import { contentEventId } from '../../../lambdas/core/pipeline/content-key.js';
import { GENUINE_SES_EXAMPLES, genuineSesExample } from '../ses/fixtures.js';

// The real deflate, counted: a candidate that cannot win is never deflated.
vi.mock(import('../../../lambdas/adapters/inbox-codec.js'), async (importOriginal) => {
  const codec = await importOriginal();
  return { ...codec, deflateWithDictionary: vi.fn(codec.deflateWithDictionary) };
});

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
    // Random bytes, as an RSA signature's are: a constant one would deflate to almost nothing.
    const signature = randomBytes(256).toString('base64');
    const raw = envelope('{"notificationType":"Bounce"}', signature);
    const packed = packBody(events, raw, pk);
    expect(packed.readUInt8(0) & 1).toBe(1);
    expect(packed.length).toBeLessThan(encodePayload(events, raw, 1).length);
  });

  // packBody deflates no plain body beside one that carries an SNS-sized signature as bytes: it must
  // still be the smallest of the three, for every genuine SES example, laid out either way.
  it.each(GENUINE_SES_EXAMPLES)('%s with a 256-byte signature: no larger than the plain body', (example) => {
    const document = genuineSesExample(example);
    for (const message of [document, JSON.stringify(JSON.parse(document))]) {
      const raw = envelope(message, randomBytes(256).toString('base64'));
      const plain =
        1 + deflateWithDictionary(`${JSON.stringify(packEvents(events, pk))}\n${raw}`, PACKING_DICTIONARY).length;
      const packed = packBody(events, raw, pk);
      expect(packed.readUInt8(0) & 1).toBe(1);
      expect(packed.length).toBeLessThanOrEqual(plain);
      expect(unpackBody(packed, pk).raw).toBe(raw);
    }
  });

  it('splits the whitespace off where it wins: the AWS example as indented, not the layouts the dictionary holds', () => {
    const document = genuineSesExample('notification-bounce-with-dsn');
    const parsed = JSON.parse(document) as unknown;
    const flags = (message: string) => packBody(events, envelope(message, randomBytes(256).toString('base64')), pk)[0];
    expect(flags(document)).toBe(3);
    expect(flags(JSON.stringify(parsed))).toBe(1);
    expect(flags(JSON.stringify(parsed, null, 2))).toBe(1);
  });

  // SES publishes its notifications compact: the split of a compact message only moves it and adds its
  // gaps, so packBody deflates it once, and must still give the smallest body.
  it.each(GENUINE_SES_EXAMPLES)('%s, compact: one deflate, and no larger than the whitespace split', (example) => {
    const document = genuineSesExample(example);
    const message = JSON.stringify(JSON.parse(document));
    const signature = randomBytes(256).toString('base64');
    const raw = envelope(message, signature);
    vi.mocked(deflateWithDictionary).mockClear();
    const packed = packBody(events, raw, pk);
    expect(vi.mocked(deflateWithDictionary)).toHaveBeenCalledTimes(1);
    const split = packParts(
      JSON.stringify(packEvents(events, pk)),
      raw,
      { signature, message },
      splitWhitespace(message),
    );
    expect(packed.readUInt8(0)).toBe(1);
    expect(packed.length).toBeLessThanOrEqual(split!.length);
    expect(unpackBody(packed, pk).raw).toBe(raw);
  });

  it('deflates both the split and the whole body of an indented message', () => {
    const document = genuineSesExample('notification-bounce-with-dsn');
    vi.mocked(deflateWithDictionary).mockClear();
    packBody(events, envelope(document, randomBytes(256).toString('base64')), pk);
    expect(vi.mocked(deflateWithDictionary)).toHaveBeenCalledTimes(2);
  });

  it('with a short signature, still keeps the plain body when it is smaller', () => {
    // 3 bytes of signature save less than the 4 bytes that say where it was: the plain body wins.
    const raw = envelope('{"a":1}', 'YWJj');
    expect(packBody(events, raw, pk).readUInt8(0)).toBe(0);
    expect(unpackBody(packBody(events, raw, pk), pk).raw).toBe(raw);
  });
});

describe('splitWhitespace / joinWhitespace', () => {
  it.each(['', '  ', '{ "a" : 1 }', '[1,\n  2]', '"a b"  "c"', 'x'])('%j round-trips', (text) => {
    const { compact, gaps } = splitWhitespace(text);
    expect(compact).not.toMatch(/^\s|\s$/);
    expect(joinWhitespace(compact, gaps)).toBe(text);
  });
});
