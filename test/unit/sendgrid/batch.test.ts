/** SendGrid bodies after the signature verified: strict parsing, per-element rules, raw slicing, big batches. */
import { describe, expect, it } from 'vitest';
import { MalformedRequestError } from '../../../lambdas/core/errors.js';
import { parseSendgridBatch } from '../../../lambdas/core/providers/sendgrid/map.js';
import { sampleSendgridEvent, sendgridBatchBody } from '../../../lib/demo/sendgrid.js';
import { NOW_MS } from '../support/provider.js';
import { CREDENTIALS, receiveSigned, sendgrid, signedBody } from './support.js';

const good = (email = 'a@example.com') => sampleSendgridEvent('hard_bounce', email, NOW_MS);

async function rejected(body: string | Buffer) {
  const receipt = sendgrid([CREDENTIALS.credential]).receive(signedBody(body));
  await expect(receipt).rejects.toThrow(MalformedRequestError);
  await expect(receipt).rejects.toMatchObject({ status: 400 });
}

describe('SendGrid body structure (400: not a strict JSON array)', () => {
  it('rejects a signed body that is not JSON', async () => {
    await rejected('[{"event":');
  });

  it('rejects a signed body that is not UTF-8', async () => {
    await rejected(Buffer.concat([Buffer.from('[{"email":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}]')]));
  });

  it('reads a signed bare JSON object (the legacy test payload shape) as a batch of one', async () => {
    const events = await receiveSigned(JSON.stringify(good()));
    expect(events.map((e) => [e.kind, e.recipient])).toEqual([['hard_bounce', 'a@example.com']]);
  });

  it('rejects a signed body that is neither an object nor an array', async () => {
    await rejected('"text"');
  });

  it('acknowledges an ignored element without sg_event_id or timestamp instead of refusing the batch', async () => {
    const events = await receiveSigned([{ email: 'x@example.com', event: 'dropped', reason: 'Invalid' }, good()]);
    expect(events.map((e) => [e.kind, e.eventId === '', e.occurredAt === 0])).toEqual([
      ['ignored', true, true],
      ['hard_bounce', false, false],
    ]);
  });

  it('rejects a duplicate JSON key inside an element, even though JSON.parse would take the last', async () => {
    const text = JSON.stringify(good('victim@example.com')).replace(/}$/, ',"email":"other@example.com"}');
    expect(() => JSON.parse(text)).not.toThrow();
    await rejected(`[${text}]`);
  });

  it('accepts an empty array as zero events', async () => {
    expect(await receiveSigned('[]\r\n')).toEqual([]);
  });
});

describe('SendGrid unusable elements (ignored with a reason, the rest admitted, never a 400 for the batch)', () => {
  async function ignoredAmongGood(element: unknown): Promise<string | undefined> {
    const events = await receiveSigned(
      `[${JSON.stringify(good('first@example.com'))},${JSON.stringify(element)},${JSON.stringify(good('last@example.com'))}]`,
    );
    expect(events.map((e) => [e.kind, e.recipient])).toEqual([
      ['hard_bounce', 'first@example.com'],
      ['ignored', ''],
      ['hard_bounce', 'last@example.com'],
    ]);
    return events[1]!.ignoredReason;
  }

  it('an element that is not an object', async () => {
    expect(await ignoredAmongGood('x')).toBe('unusable SendGrid event: not an object');
    expect(await ignoredAmongGood([])).toBe('unusable SendGrid event: not an object');
  });

  it('an element without a string sg_event_id, or one over 100 characters (exactly 100 is fine)', async () => {
    for (const sg_event_id of [undefined, '', 42, null, 'x'.repeat(101)]) {
      expect(await ignoredAmongGood({ ...good(), sg_event_id })).toBe('unusable SendGrid event: no valid sg_event_id');
    }
    const [event] = await receiveSigned([{ ...good(), sg_event_id: 'x'.repeat(100) }]);
    expect(event!.eventId).toBe('x'.repeat(100));
  });

  it('an element without a string event type', async () => {
    expect(await ignoredAmongGood({ ...good(), event: undefined })).toBe('unusable SendGrid event: no event type');
    expect(await ignoredAmongGood({ ...good(), event: 7 })).toBe('unusable SendGrid event: no event type');
  });

  it('an element without a readable timestamp', async () => {
    for (const timestamp of [undefined, 'yesterday', -1, null]) {
      expect(await ignoredAmongGood({ ...good(), timestamp })).toBe('unusable SendGrid event: no readable timestamp');
    }
  });
});

describe('SendGrid invalid recipients (ignored, not 400)', () => {
  it('turns an element with an unusable recipient into an ignored event and keeps the rest of the batch', async () => {
    const events = await receiveSigned([
      good('ok@example.com'),
      good('"quoted local"@example.com'),
      { ...good(), email: 42 },
      good('b@example.com'),
    ]);
    expect(events.map((e) => e.kind)).toEqual(['hard_bounce', 'ignored', 'ignored', 'hard_bounce']);
    expect(events[1]).toMatchObject({ recipient: '', ignoredReason: 'recipient is not an email address' });
    expect(events[2]).toMatchObject({ recipient: '', ignoredReason: 'recipient is not an email address' });
  });

  it('normalizes a valid recipient (trim, lower-case)', async () => {
    const [event] = await receiveSigned([good('  Mixed.Case@Example.COM ')]);
    expect(event!.recipient).toBe('mixed.case@example.com');
  });
});

describe('SendGrid raw text per element', () => {
  it('is each element exactly as sent, whatever the whitespace, escapes and nesting', () => {
    const elements = [
      `{ "email" : "a@example.com", "event":"delivered", "sg_event_id":"e1", "timestamp":1700000000 ,"note":"a,b]}\\"x" }`,
      `{"email":"b@example.com","event":"bounce","type":"bounce","sg_event_id":"e2","timestamp":1.7e9,"unique_args":{"x":[1,{"y":"]"}]},"category":["a","b"]}`,
      `{"email":"c\\u0040example.com","event":"open","sg_event_id":"e3","timestamp":1700000000,"emoji":"\u00e9\ud83d\ude00"}`,
    ];
    const text = `\r\n [ ${elements[0]} ,\n\t${elements[1]}\r\n,${elements[2]}]\r\n`;
    const events = parseSendgridBatch(text);
    expect(events.map((e) => e.raw)).toEqual(elements);
    expect(events.map((e) => e.recipient)).toEqual(['a@example.com', 'b@example.com', 'c@example.com']);
    expect(events[1]!.occurredAt).toBe(1_700_000_000_000);
  });

  it('handles a 1,500-event, ~768 KB batch, each raw equal to its element and each id distinct', async () => {
    const elements = Array.from({ length: 1500 }, (_, i) => ({
      ...sampleSendgridEvent(i % 2 ? 'hard_bounce' : 'delivered', `user${i}@example.com`, NOW_MS),
      // Padding up to SendGrid's 768 KB batch size: custom args arrive as top-level keys.
      marketing_note: 'x'.repeat(40),
    }));
    const body = sendgridBatchBody(elements);
    expect(body.length).toBeGreaterThan(700_000);
    expect(body.length).toBeLessThan(800_000);

    const events = await receiveSigned(body);
    expect(events).toHaveLength(1500);
    expect(new Set(events.map((e) => e.eventId)).size).toBe(1500);
    events.forEach((e, i) => {
      expect(e.raw).toBe(JSON.stringify(elements[i]));
      expect(e.recipient).toBe(`user${i}@example.com`);
      expect(e.kind).toBe(i % 2 ? 'hard_bounce' : 'delivered');
    });
  });
});
