/**
 * Every Standard Webhooks refusal with its status, code and exact reason (the `reason` field of the
 * "webhook rejected" log line), plus the provider definition the registry, the CDK stack and the
 * local runtime read (variable names and the signature window are public contracts).
 */
import { describe, expect, it } from 'vitest';
import { AuthenticationError } from '../../../lambdas/core/errors.js';
import {
  decodeStandardSecrets,
  STANDARD_CREDENTIALS_VARIABLE,
  STANDARD_DEFAULT_WINDOW_SECONDS,
  STANDARD_TOLERANCE_VARIABLE,
  standardWebhooksProvider,
  standardWindow,
} from '../../../lambdas/core/providers/standard-webhooks/index.js';
import { standardSignature } from '../../../lib/demo/standard-webhooks.js';
import { type Headers, NOW_SECONDS, request } from '../support/provider.js';
import { MSG_ID, resendBody, SECRET, signed, standard } from './support.js';

const BODY = resendBody('email.delivered');

async function refusal(headers: Headers, body = BODY): Promise<unknown> {
  return standard()
    .receive(request(body, headers))
    .then(
      () => 'accepted',
      (error: unknown) => error,
    );
}

function authFailure(message: string) {
  return expect.objectContaining({ status: 401, code: 'authentication_failed', message });
}

const goodHeaders = () => signed(BODY).headers as Record<string, string>;

describe('header refusals (401 authentication_failed)', () => {
  it.each(['id', 'timestamp', 'signature'])('a blank webhook-%s is "missing webhook-%s header"', async (name) => {
    for (const blank of ['', ' ', '\t ']) {
      const error = await refusal({ ...goodHeaders(), [`webhook-${name}`]: blank });
      expect(error).toBeInstanceOf(AuthenticationError);
      expect(error).toEqual(authFailure(`missing webhook-${name} header`));
    }
  });

  it.each(['id', 'timestamp', 'signature'])('a blank svix-%s alone is "missing webhook-%s header"', async (name) => {
    const { [`webhook-${name}`]: _, ...rest } = goodHeaders();
    expect(await refusal({ ...rest, [`svix-${name}`]: ' ' })).toEqual(authFailure(`missing webhook-${name} header`));
  });

  it.each(['id', 'timestamp', 'signature'])('an absent webhook-%s is "missing webhook-%s header"', async (name) => {
    const { [`webhook-${name}`]: _, ...rest } = goodHeaders();
    expect(await refusal(rest)).toEqual(authFailure(`missing webhook-${name} header`));
  });

  it.each([
    ['id', 'msg_other'],
    ['timestamp', String(Number(NOW_SECONDS) - 1)],
    ['signature', 'v1,AAAA'],
  ])('webhook-%s and svix-%s that disagree: "webhook-… and svix-… disagree"', async (name, other) => {
    expect(await refusal({ ...goodHeaders(), [`svix-${name}`]: other })).toEqual(
      authFailure(`webhook-${name} and svix-${name} disagree`),
    );
  });

  it('an id with a dot: "webhook-id is not a valid id"', async () => {
    expect(await refusal(signed(BODY, 'msg_a.b').headers)).toEqual(authFailure('webhook-id is not a valid id'));
  });

  it('a timestamp that is not digits: "webhook-timestamp is not a Unix timestamp"', async () => {
    const timestamp = `${NOW_SECONDS}abc`;
    const headers = {
      'webhook-id': MSG_ID,
      'webhook-timestamp': timestamp,
      'webhook-signature': standardSignature(SECRET, MSG_ID, timestamp, BODY),
    };
    expect(await refusal(headers)).toEqual(authFailure('webhook-timestamp is not a Unix timestamp'));
  });

  it('no v1 entry that matches: "no matching v1 signature"', async () => {
    expect(await refusal({ ...goodHeaders(), 'webhook-signature': 'v1,AAAA' })).toEqual(
      authFailure('no matching v1 signature'),
    );
    expect(await refusal(goodHeaders(), `${BODY} `)).toEqual(authFailure('no matching v1 signature'));
  });
});

describe('webhook-id: printable ASCII without a dot, 1 to 256 characters', () => {
  it.each([
    ['one character', '!'],
    ['256 characters', 'a'.repeat(256)],
    [
      'every printable character but the dot',
      Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i))
        .join('')
        .replace('.', ''),
    ],
  ])('accepts %s', async (_, id) => {
    const { events } = await standard().receive(signed(BODY, id));
    expect(events.map((e) => e.eventId)).toEqual([`${id}:delivered@resend.dev`]);
  });

  it.each([
    ['257 characters', 'a'.repeat(257)],
    ['a dot at the end', 'msg_abc.'],
    ['a dot at the start', '.msg_abc'],
    ['a space at the end', 'msg_abc '],
    ['a DEL character', 'msg_\u007f'],
  ])('refuses %s, even when correctly signed', async (_, id) => {
    expect(await refusal(signed(BODY, id).headers)).toEqual(authFailure('webhook-id is not a valid id'));
  });
});

describe('secrets at create()', () => {
  it.each([
    ['an upper-case prefix', 'WHSEC_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    ['another six-character prefix', 'whsk__MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    ['a colon instead of the underscore', 'whsec:MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
  ])('refuses %s even when the rest is valid base64', (_, secret) => {
    expect(() => decodeStandardSecrets([SECRET, secret])).toThrow(
      'STANDARD_WEBHOOK_SECRETS entry 2 is not whsec_ + base64',
    );
  });

  it('decodes the base64 after whsec_ into the key bytes', () => {
    expect(decodeStandardSecrets([SECRET])).toEqual([Buffer.from('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'base64')]);
  });
});

describe('the provider definition', () => {
  it('names its route, variables and setting', () => {
    expect(STANDARD_CREDENTIALS_VARIABLE).toBe('STANDARD_WEBHOOK_SECRETS');
    expect(STANDARD_TOLERANCE_VARIABLE).toBe('STANDARD_WEBHOOK_TOLERANCE_SECONDS');
    expect(STANDARD_DEFAULT_WINDOW_SECONDS).toBe(300);
    expect(standardWebhooksProvider).toMatchObject({
      name: 'standard',
      credentialsVariable: 'STANDARD_WEBHOOK_SECRETS',
      secretArnVariable: 'STANDARD_WEBHOOK_SECRET_ARN',
    });
    expect(standardWebhooksProvider.settings).toEqual([
      {
        variable: 'STANDARD_WEBHOOK_TOLERANCE_SECONDS',
        describe:
          'How old a signed timestamp may be, whole seconds up to 48 h; ahead, the same capped at 5 min (default 300)',
      },
    ]);
  });

  it('reports the window create() uses: ±300 s by default, the age from the setting, the future capped at 300 s', () => {
    expect(standardWebhooksProvider.signatureWindow?.({})).toEqual({
      window: { maxAgeMs: 300_000, maxFutureMs: 300_000 },
      variables: ['STANDARD_WEBHOOK_TOLERANCE_SECONDS'],
    });
    expect(standardWebhooksProvider.signatureWindow?.({ STANDARD_WEBHOOK_TOLERANCE_SECONDS: '3600' })).toEqual({
      window: { maxAgeMs: 3_600_000, maxFutureMs: 300_000 },
      variables: ['STANDARD_WEBHOOK_TOLERANCE_SECONDS'],
    });
    expect(standardWindow({ STANDARD_WEBHOOK_TOLERANCE_SECONDS: '60' })).toEqual({
      maxAgeMs: 60_000,
      maxFutureMs: 60_000,
    });
    expect(standardWindow({ OTHER_WEBHOOK_TOLERANCE_SECONDS: '60' })).toEqual({
      maxAgeMs: 300_000,
      maxFutureMs: 300_000,
    });
  });

  it('creates a receiver named after the route', () => {
    expect(standard().name).toBe('standard');
  });
});
