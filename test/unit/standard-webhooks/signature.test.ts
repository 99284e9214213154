/** Standard Webhooks v1 verification: the official vectors and every rejection rule. */
import { describe, expect, it } from 'vitest';
import { AuthenticationError, MalformedRequestError, StaleRequestError } from '../../../lambdas/core/errors.js';
import { decodeStandardSecrets } from '../../../lambdas/core/providers/standard-webhooks/index.js';
import { verifyStandardWebhook } from '../../../lambdas/core/providers/standard-webhooks/verify.js';
import { SYMMETRIC_FIVE_MINUTES } from '../../../lambdas/core/time.js';
import { standardSignature } from '../../../lib/demo/standard-webhooks.js';
import { NOW_MS, NOW_SECONDS, request } from '../support/provider.js';
import { carriesEvents } from '../support/receipt.js';
import {
  MSG_ID,
  OTHER_SECRET,
  resendBody,
  SECRET,
  signed,
  standard,
  VECTOR_1,
  VECTOR_2,
  type Vector,
  vectorHeaders,
} from './support.js';

const BODY = resendBody('email.delivered');

/** Verifies a vector with the clock pinned 10 s after its timestamp. */
function verifyVector(v: Vector, headers = vectorHeaders(v), payload = v.payload) {
  return verifyStandardWebhook(
    request(payload, headers),
    decodeStandardSecrets([v.secret]),
    Number(v.timestamp) * 1000 + 10_000,
    SYMMETRIC_FIVE_MINUTES,
  );
}

describe('official vectors', () => {
  it.each([
    ['vector 1', VECTOR_1],
    ['vector 2', VECTOR_2],
  ])('%s verifies under an injected clock', (_, v) => {
    expect(verifyVector(v)).toEqual({ id: v.id, signedAtMs: Number(v.timestamp) * 1000 });
  });

  it('our demo signer reproduces both expected signatures', () => {
    for (const v of [VECTOR_1, VECTOR_2])
      expect(standardSignature(v.secret, v.id, v.timestamp, v.payload)).toBe(v.signature);
  });

  it('vector 1 with its last signature character changed fails', () => {
    expect(() =>
      verifyVector(VECTOR_1, vectorHeaders(VECTOR_1, 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OA=')),
    ).toThrow(AuthenticationError);
  });

  it('vector 1 is stale under the real clock', () => {
    expect(() =>
      verifyStandardWebhook(
        request(VECTOR_1.payload, vectorHeaders(VECTOR_1)),
        decodeStandardSecrets([VECTOR_1.secret]),
        Date.now(),
        SYMMETRIC_FIVE_MINUTES,
      ),
    ).toThrow(StaleRequestError);
  });

  it("the spec's multi-signature header: bogus v1 and v2 entries around the valid one", () => {
    const header = `v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= v2,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= ${VECTOR_1.signature} v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=`;
    expect(verifyVector(VECTOR_1, vectorHeaders(VECTOR_1, header)).id).toBe(VECTOR_1.id);
  });

  it('an empty `v1,` entry fails', () => {
    expect(() => verifyVector(VECTOR_1, vectorHeaders(VECTOR_1, 'v1,'))).toThrow(AuthenticationError);
  });
});

describe('signature header parsing', () => {
  const valid = () => standardSignature(SECRET, MSG_ID, NOW_SECONDS, BODY);
  const mac = () => valid().slice('v1,'.length);
  const receive = (signature: string) =>
    standard().receive(
      request(BODY, { 'webhook-id': MSG_ID, 'webhook-timestamp': NOW_SECONDS, 'webhook-signature': signature }),
    );

  it('accepts the valid entry alone', async () => {
    await expect(receive(valid())).resolves.toSatisfy(carriesEvents('standard'));
  });

  it.each([
    ['v1a (ed25519, not implemented)', () => `v1a,${mac()}`],
    ['v2', () => `v2,${mac()}`],
    ['V1 (versions are case-sensitive)', () => `V1,${mac()}`],
    ['no version', () => mac()],
    ['`v1=` instead of `v1,`', () => `v1=${mac()}`],
  ])('does not accept a correct MAC under %s', async (_, signature) => {
    await expect(receive(signature())).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('skips unknown versions and still finds the v1 entry', async () => {
    await expect(receive(`v1a,${mac()} v2,${mac()} ${valid()}`)).resolves.toSatisfy(carriesEvents('standard'));
  });

  it('skips garbled entries and still finds the v1 entry', async () => {
    await expect(receive(`v1,!!!garbage!!! v1,${mac().slice(0, -1)} ${valid()}`)).resolves.toSatisfy(
      carriesEvents('standard'),
    );
  });

  it('tolerates repeated spaces between entries', async () => {
    await expect(receive(`v2,xyz   ${valid()}`)).resolves.toSatisfy(carriesEvents('standard'));
  });

  it.each([
    ['garbled base64', 'v1,!!!garbage!!!'],
    ['unpadded base64', () => `v1,${mac().replace(/=$/, '')}`],
    ['a truncated MAC (wrong length)', () => `v1,${Buffer.from(mac(), 'base64').subarray(0, 31).toString('base64')}`],
    [
      'an extended MAC (wrong length)',
      () => `v1,${Buffer.concat([Buffer.from(mac(), 'base64'), Buffer.from([0])]).toString('base64')}`,
    ],
    ['the MAC in hex', () => `v1,${Buffer.from(mac(), 'base64').toString('hex')}`],
    // Entries are compared as text with the MAC's base64, not decoded: these are the edge cases of that.
    ['the right length (44) with a non-base64 character', () => `v1,${mac().slice(0, 10)}*${mac().slice(11)}`],
    [
      'a non-ASCII character whose low byte is the right one',
      () => `v1,${String.fromCharCode(0x100 + mac().charCodeAt(0))}${mac().slice(1)}`,
    ],
  ])('rejects %s', async (_, signature) => {
    await expect(receive(typeof signature === 'string' ? signature : signature())).rejects.toBeInstanceOf(
      AuthenticationError,
    );
  });

  it('rejects a non-canonical spelling of the right MAC (non-zero padding bits), as the reference library does', async () => {
    const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    const last = ALPHABET.indexOf(mac()[42]!); // 4 MAC bits + 2 padding bits, which are 0 when canonical
    const nonCanonical = `${mac().slice(0, 42)}${ALPHABET[last + 1]}=`;
    expect(Buffer.from(nonCanonical, 'base64').equals(Buffer.from(mac(), 'base64'))).toBe(true);
    await expect(receive(`v1,${nonCanonical}`)).rejects.toBeInstanceOf(AuthenticationError);
    await expect(receive(`v1,${nonCanonical} ${valid()}`)).resolves.toSatisfy(carriesEvents('standard'));
  });
});

describe('what the signature binds', () => {
  it('a tampered body fails', async () => {
    const req = signed(BODY);
    const tampered = request(
      BODY.replace('delivered@resend.dev', 'victim@resend.dev'),
      req.headers as Record<string, string>,
    );
    await expect(standard().receive(tampered)).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('a trailing newline added to the body fails (raw bytes, not re-serialized JSON)', async () => {
    const req = signed(BODY);
    await expect(
      standard().receive(request(`${BODY}\n`, req.headers as Record<string, string>)),
    ).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('changing webhook-id breaks it: the id is signed', async () => {
    const headers = { ...(signed(BODY).headers as Record<string, string>), 'webhook-id': 'msg_someOtherId' };
    await expect(standard().receive(request(BODY, headers))).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('changing webhook-timestamp breaks it, even to another fresh value', async () => {
    const headers = {
      ...(signed(BODY).headers as Record<string, string>),
      'webhook-timestamp': String(Number(NOW_SECONDS) - 1),
    };
    await expect(standard().receive(request(BODY, headers))).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('a wrong secret fails', async () => {
    await expect(standard([OTHER_SECRET]).receive(signed(BODY))).rejects.toBeInstanceOf(AuthenticationError);
  });
});

describe('rotation', () => {
  it('accepts a request signed with any configured secret', async () => {
    const provider = standard([OTHER_SECRET, SECRET]);
    await expect(provider.receive(signed(BODY, MSG_ID, NOW_SECONDS, SECRET))).resolves.toSatisfy(
      carriesEvents('standard'),
    );
    await expect(provider.receive(signed(BODY, MSG_ID, NOW_SECONDS, OTHER_SECRET))).resolves.toSatisfy(
      carriesEvents('standard'),
    );
  });

  it("accepts a sender's two signatures (old and new secret) when we know only one", async () => {
    const signature = `${standardSignature(OTHER_SECRET, MSG_ID, NOW_SECONDS, BODY)} ${standardSignature(SECRET, MSG_ID, NOW_SECONDS, BODY)}`;
    const req = request(BODY, {
      'webhook-id': MSG_ID,
      'webhook-timestamp': NOW_SECONDS,
      'webhook-signature': signature,
    });
    await expect(standard([SECRET]).receive(req)).resolves.toSatisfy(carriesEvents('standard'));
  });
});

describe('timestamp', () => {
  const at = (seconds: number) => standard().receive(signed(BODY, MSG_ID, String(seconds)));
  const now = Number(NOW_SECONDS);

  it('accepts exactly ±300 s', async () => {
    await expect(at(now - 300)).resolves.toSatisfy(carriesEvents('standard'));
    await expect(at(now + 300)).resolves.toSatisfy(carriesEvents('standard'));
  });

  it('rejects 301 s old as stale (401)', async () => {
    await expect(at(now - 301)).rejects.toBeInstanceOf(StaleRequestError);
  });

  it('rejects 301 s in the future as stale (401)', async () => {
    await expect(at(now + 301)).rejects.toBeInstanceOf(StaleRequestError);
  });

  it('honours STANDARD_WEBHOOK_TOLERANCE_SECONDS', async () => {
    const narrow = standard([SECRET], NOW_MS, { STANDARD_WEBHOOK_TOLERANCE_SECONDS: '60' });
    await expect(narrow.receive(signed(BODY, MSG_ID, String(now - 61)))).rejects.toBeInstanceOf(StaleRequestError);
    const wide = standard([SECRET], NOW_MS, { STANDARD_WEBHOOK_TOLERANCE_SECONDS: '900' });
    await expect(wide.receive(signed(BODY, MSG_ID, String(now - 899)))).resolves.toSatisfy(carriesEvents('standard'));
  });

  it.each(['abc', '-1', '0x10', '5m'])('refuses a STANDARD_WEBHOOK_TOLERANCE_SECONDS of %j at create()', (value) => {
    expect(() => standard([SECRET], NOW_MS, { STANDARD_WEBHOOK_TOLERANCE_SECONDS: value })).toThrow(
      /STANDARD_WEBHOOK_TOLERANCE_SECONDS/,
    );
  });

  it.each([
    ['trailing garbage', `${NOW_SECONDS}abc`],
    ['a sign', `+${NOW_SECONDS}`],
    ['a fraction', `${NOW_SECONDS}.5`],
    ['exponent notation', '1.7369424e9'],
    ['leading space', ` ${NOW_SECONDS}`],
    ['milliseconds-length overflow', '1'.repeat(16)],
  ])('rejects a timestamp with %s, even when the signature covers it exactly', async (_, timestamp) => {
    const req = request(BODY, {
      'webhook-id': MSG_ID,
      'webhook-timestamp': timestamp,
      'webhook-signature': standardSignature(SECRET, MSG_ID, timestamp, BODY),
    });
    await expect(standard().receive(req)).rejects.toBeInstanceOf(AuthenticationError);
  });
});

describe('headers', () => {
  const headers = () => signed(BODY).headers as Record<string, string>;

  it.each(['webhook-id', 'webhook-timestamp', 'webhook-signature'])(
    'rejects a request without %s (401)',
    async (name) => {
      const { [name]: _, ...rest } = headers();
      const error = await standard()
        .receive(request(BODY, rest))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AuthenticationError);
      expect((error as Error).message).toContain(name);
    },
  );

  it.each(['webhook-id', 'webhook-timestamp', 'webhook-signature'])('rejects a blank %s (401)', async (name) => {
    await expect(standard().receive(request(BODY, { ...headers(), [name]: ' ' }))).rejects.toBeInstanceOf(
      AuthenticationError,
    );
  });

  it.each([
    ['a dot (the signed string is dot-delimited)', 'msg_abc.1736942400'],
    ['a space', 'msg abc'],
    ['a non-ASCII character', 'msg_é'],
    ['257 characters', `msg_${'a'.repeat(253)}`],
  ])('rejects a webhook-id with %s, even when correctly signed', async (_, id) => {
    await expect(standard().receive(signed(BODY, id))).rejects.toBeInstanceOf(AuthenticationError);
  });
});

describe('svix-* aliases (Resend)', () => {
  const svix = (h: Record<string, string>) => ({
    'svix-id': h['webhook-id']!,
    'svix-timestamp': h['webhook-timestamp']!,
    'svix-signature': h['webhook-signature']!,
  });
  const webhookHeaders = () => signed(BODY).headers as Record<string, string>;

  it('accepts svix-id / svix-timestamp / svix-signature alone', async () => {
    const { events } = await standard().receive(request(BODY, svix(webhookHeaders())));
    expect(events[0]!.eventId).toBe(`${MSG_ID}:delivered@resend.dev`);
  });

  it('accepts both spellings when they agree', async () => {
    const h = webhookHeaders();
    await expect(standard().receive(request(BODY, { ...h, ...svix(h) }))).resolves.toSatisfy(carriesEvents('standard'));
  });

  it('treats each svix-* header as the alias of its webhook-* header (mixed spellings verify)', async () => {
    const h = webhookHeaders();
    const mixed = {
      'webhook-id': h['webhook-id'],
      'svix-timestamp': h['webhook-timestamp'],
      'svix-signature': h['webhook-signature'],
    };
    await expect(standard().receive(request(BODY, mixed))).resolves.toSatisfy(carriesEvents('standard'));
  });

  it.each(['id', 'timestamp', 'signature'])(
    'rejects webhook-%s and svix-%s that disagree, whichever one is valid',
    async (name) => {
      const h = webhookHeaders();
      const bogus = name === 'timestamp' ? String(Number(NOW_SECONDS) - 1) : name === 'id' ? 'msg_other' : 'v1,AAAA';
      await expect(standard().receive(request(BODY, { ...h, [`svix-${name}`]: bogus }))).rejects.toBeInstanceOf(
        AuthenticationError,
      );
      // The valid value under svix-*, a bogus one under webhook-*: still rejected, not "svix wins".
      const valid = h[`webhook-${name}`]!;
      await expect(
        standard().receive(request(BODY, { ...h, [`webhook-${name}`]: bogus, [`svix-${name}`]: valid })),
      ).rejects.toBeInstanceOf(AuthenticationError);
    },
  );

  it('rejects a svix-signature that does not verify', async () => {
    const s = svix(webhookHeaders());
    await expect(standard().receive(request(BODY, { ...s, 'svix-id': 'msg_other' }))).rejects.toBeInstanceOf(
      AuthenticationError,
    );
  });
});

describe('authentication before parsing', () => {
  it('an unsigned non-JSON body is 401, not 400', async () => {
    const req = request('{not json', {
      'webhook-id': MSG_ID,
      'webhook-timestamp': NOW_SECONDS,
      'webhook-signature': 'v1,AAAA',
    });
    await expect(standard().receive(req)).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('a signed non-JSON body is 400', async () => {
    await expect(standard().receive(signed('{not json'))).rejects.toBeInstanceOf(MalformedRequestError);
  });

  it('a signed body with duplicate keys is 400', async () => {
    const body = '{"type":"email.bounced","type":"email.delivered","data":{"to":["a@example.com"]}}';
    await expect(standard().receive(signed(body))).rejects.toBeInstanceOf(MalformedRequestError);
  });

  it('a signed body that is not UTF-8 is 400', async () => {
    const body = Buffer.from([0x7b, 0xff, 0x7d]);
    const req = request(body, {
      'webhook-id': MSG_ID,
      'webhook-timestamp': NOW_SECONDS,
      'webhook-signature': standardSignature(SECRET, MSG_ID, NOW_SECONDS, body),
    });
    await expect(standard().receive(req)).rejects.toBeInstanceOf(MalformedRequestError);
  });
});

describe('secrets at create()', () => {
  it.each([
    ['no whsec_ prefix', 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    ['an empty secret', 'whsec_'],
    ['not base64', 'whsec_not*base64*at*all!'],
    ['unpadded base64', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaS'],
    ['a whsk_ (asymmetric) key', 'whsk_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
  ])('refuses %s, naming the entry', (_, secret) => {
    expect(() => standard([SECRET, secret])).toThrow(/STANDARD_WEBHOOK_SECRETS entry 2 is not whsec_ \+ base64/);
  });

  it('does not echo a refused secret', () => {
    for (const secret of ['MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'whsec_not*base64*at*all!']) {
      expect(() => standard([secret])).toThrow(
        expect.objectContaining({ message: expect.not.stringContaining('base64*at') }),
      );
      expect(() => standard([secret])).toThrow(
        expect.objectContaining({ message: expect.not.stringContaining('MfKQ9r8G') }),
      );
    }
  });
});
