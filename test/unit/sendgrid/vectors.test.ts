/** SendGrid's official test vectors (from @sendgrid/eventwebhook's own spec), under an injected clock. */
import { describe, expect, it } from 'vitest';
import { AuthenticationError, MalformedRequestError } from '../../../lambdas/core/errors.js';
import { parseSendgridPublicKey } from '../../../lambdas/core/providers/sendgrid/index.js';
import { verifySendgridSignature } from '../../../lambdas/core/providers/sendgrid/verify.js';
import {
  MUTATED_SIGNATURE,
  sendgrid,
  VECTOR_A,
  VECTOR_B,
  VECTOR_B_EVENT_1,
  VECTOR_B_EVENT_2,
  VECTOR_C,
  type Vector,
  vectorRequest,
  WRONG_KEY,
} from './support.js';

/** Ten seconds after the vector was signed: inside the default window. */
const clockFor = (v: Vector) => Number(v.timestamp) * 1000 + 10_000;
const keysOf = (...keys: string[]) => keys.map(parseSendgridPublicKey);

describe('SendGrid official vectors', () => {
  it('A (single event) verifies and yields the dropped/Bounced Address echo', async () => {
    expect(verifySendgridSignature(vectorRequest(VECTOR_A), keysOf(VECTOR_A.publicKey))).toEqual({
      signedAtSeconds: 1600112502,
    });
    const { events } = await sendgrid([VECTOR_A.publicKey], clockFor(VECTOR_A)).receive(vectorRequest(VECTOR_A));
    expect(events).toEqual([
      {
        provider: 'sendgrid',
        eventId: 'ZHJvcC0xMDk5NDkxOS1MUnpYbF9OSFN0T0doUTRrb2ZTbV9BLTA',
        recipient: 'hello@world.com',
        kind: 'hard_bounce',
        sender: 'sendgrid',
        occurredAt: 1600112492000,
        detail: { echo: true, diagnosticCode: 'Bounced Address', providerEventType: 'dropped' },
        messageId: 'LRzXl_NHStOGhQ4kofSm_A',
        // The element's own bytes, without the array brackets or the trailing CRLF.
        raw: VECTOR_A.payload.slice(1, -3),
      },
    ]);
  });

  it('A does not verify without its trailing CRLF', () => {
    const request = vectorRequest(VECTOR_A, { payload: VECTOR_A.payload.slice(0, -2) });
    expect(() => verifySendgridSignature(request, keysOf(VECTOR_A.publicKey))).toThrow(AuthenticationError);
  });

  it('B (two events, CRLF-separated) verifies and yields both events with their exact raw text', async () => {
    const { events } = await sendgrid([VECTOR_B.publicKey], clockFor(VECTOR_B)).receive(vectorRequest(VECTOR_B));
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({
      eventId: 'cHJvY2Vzc2VkLTE5OTQyMTEyLXFOd0JMZ1BRUWpXNkRKdktRd1NBYnctMA',
      kind: 'ignored',
      recipient: 'invalid@gmail.com',
      occurredAt: 1619651146000,
      raw: VECTOR_B_EVENT_1,
    });
    expect(events[1]).toEqual({
      provider: 'sendgrid',
      eventId: 'Ym91bmNlLTAtMTk5NDIxMTItcU53QkxnUFFRalc2REp2S1F3U0Fidy0w',
      recipient: 'invalid@gmail.com',
      kind: 'soft_bounce',
      sender: 'sendgrid',
      occurredAt: 1619651147000,
      detail: {
        bounceType: 'blocked',
        status: '5.2.2',
        diagnosticCode: expect.stringMatching(/^552 5\.2\.2 The email account/),
        providerEventType: 'bounce',
      },
      messageId: 'qNwBLgPQQjW6DJvKQwSAbw',
      raw: VECTOR_B_EVENT_2,
    });
  });

  it('C (legacy, not an array) verifies, and its unknown test_event is acknowledged as ignored', async () => {
    expect(verifySendgridSignature(vectorRequest(VECTOR_C), keysOf(VECTOR_C.publicKey))).toEqual({
      signedAtSeconds: 1588788367,
    });
    const { events } = await sendgrid([VECTOR_C.publicKey], clockFor(VECTOR_C)).receive(vectorRequest(VECTOR_C));
    expect(events.map((e) => [e.kind, e.ignoredReason, e.recipient])).toEqual([
      ['ignored', 'unknown SendGrid event type', ''],
    ]);
  });
});

describe('SendGrid official negative vectors', () => {
  it('rejects vector A under the wrong key', async () => {
    expect(() => verifySendgridSignature(vectorRequest(VECTOR_A), keysOf(WRONG_KEY))).toThrow(AuthenticationError);
    await expect(sendgrid([WRONG_KEY], clockFor(VECTOR_A)).receive(vectorRequest(VECTOR_A))).rejects.toMatchObject({
      status: 401,
      code: 'authentication_failed',
    });
  });

  it("rejects vector A's signature over the payload 'payload'", () => {
    const request = vectorRequest(VECTOR_A, { payload: 'payload' });
    expect(() => verifySendgridSignature(request, keysOf(VECTOR_A.publicKey))).toThrow(AuthenticationError);
  });

  it('rejects the one-character-mutated signature (against A, as the spec does, and against C, which it mutates)', () => {
    const onA = vectorRequest(VECTOR_A, { signature: MUTATED_SIGNATURE });
    expect(() => verifySendgridSignature(onA, keysOf(VECTOR_A.publicKey))).toThrow(AuthenticationError);
    const onC = vectorRequest(VECTOR_C, { signature: MUTATED_SIGNATURE });
    expect(() => verifySendgridSignature(onC, keysOf(VECTOR_C.publicKey))).toThrow(AuthenticationError);
  });

  it("rejects the timestamp 'timestamp'", () => {
    const request = vectorRequest(VECTOR_A, { timestamp: 'timestamp' });
    expect(() => verifySendgridSignature(request, keysOf(VECTOR_A.publicKey))).toThrow(AuthenticationError);
  });
});
