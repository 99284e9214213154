import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { storedRowAttributes } from '../../../lambdas/adapters/dynamodb-inbox.js';
import { itemSize, readUnits, writeUnits } from '../../../lambdas/adapters/dynamodb-item-size.js';
import { CURRENT_CODEC, decodePayload, dictionary, encodePayload } from '../../../lambdas/adapters/inbox-codec.js';

const sesDelivery = readFileSync(new URL('../../../bench/fixtures/ses/event-delivery.json', import.meta.url), 'utf8');
const envelope = `{\n  "Type" : "Notification",\n  "MessageId" : "22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324",\n  "Message" : ${JSON.stringify(sesDelivery)}\n}`;

describe('inbox codec', () => {
  it('round-trips the raw payload byte for byte, with the events beside it', () => {
    const events = [
      {
        provider: 'ses',
        eventId: 'm:a@example.com',
        recipient: 'a@example.com',
        kind: 'delivered' as const,
        occurredAt: 1,
        detail: {},
      },
    ];
    for (const raw of [envelope, '', 'line\nbreaks\r\n and\ttabs', 'ünïcödé ✓ 𝄞 "quotes" \\ back\\slash', '[]\n{}']) {
      const decoded = decodePayload(encodePayload(events, raw), CURRENT_CODEC);
      expect(decoded.raw).toBe(raw);
      expect(decoded.events).toEqual(events);
    }
  });

  it('the preset dictionary makes an SES envelope much smaller than plain deflate would', async () => {
    const { deflateRawSync } = await import('node:zlib');
    const withDictionary = encodePayload([], envelope).length;
    expect(withDictionary).toBeLessThan(deflateRawSync(envelope, { level: 9 }).length * 0.8);
  });

  it('dictionaries never change once shipped (old rows must stay readable)', () => {
    expect(createHash('sha256').update(dictionary(1)).digest('hex')).toBe(V1_SHA256);
    expect(createHash('sha256').update(dictionary(2)).digest('hex')).toBe(V2_SHA256);
    expect(() => dictionary(99)).toThrow(/unknown inbox codec version/);
  });
});

describe('DynamoDB item size rules', () => {
  it('counts names and values as documented', () => {
    // "pk" (2) + "ab" (2); "n" (1) + 123.45 → 5 significant digits: ceil(5/2) + 1 = 4; "b" (1) + 3 bytes.
    expect(itemSize({ pk: { S: 'ab' }, n: { N: '123.45' }, b: { B: new Uint8Array(3) } })).toBe(4 + 5 + 4);
    // Leading and trailing zeros are trimmed: 1000 has one significant digit → 2 bytes.
    expect(itemSize({ n: { N: '1000' } })).toBe(1 + 2);
    // A map: 3 bytes + per element (1 + key + value); a list: 3 + per element (1 + value); booleans 1.
    expect(itemSize({ m: { M: { k: { S: 'v' } } } })).toBe(1 + 3 + 1 + 1 + 1);
    expect(itemSize({ l: { L: [{ BOOL: true }, { NULL: true }] } })).toBe(1 + 3 + 2 + 2);
  });

  it('bills a write unit per started KB and a strongly consistent read unit per started 4 KB', () => {
    expect([writeUnits(0), writeUnits(1024), writeUnits(1025)]).toEqual([1, 1, 2]);
    expect([readUnits(1), readUnits(4096), readUnits(4097)]).toEqual([1, 1, 2]);
  });

  it('sizes an inbox row from exactly the attributes it stores', () => {
    const bytes = itemSize(
      storedRowAttributes({ pk: 'ses#x', expiresAt: 1_700_000_000, body: new Uint8Array(10), v: 2 }),
    );
    // pk 2+5, expiresAt 9+(ceil(2/2)+1 for "17", zeros trimmed: 2), body 4+10, v 1+2
    expect(bytes).toBe(7 + 9 + 2 + 14 + 3);
  });
});

const V1_SHA256 = '28ea7cdb8fd39b619830003efd83f319ccf99c74b3b180223d24539f2a1a0315';
const V2_SHA256 = '539f29233e0f2a40255e9a57ddccede81984cfa4fb5635886c6df5413c3e50ef';
