/**
 * Every refusal of the generic contract with its status, code and exact reason (the `reason` field of
 * the "webhook rejected" log line, which is what an implementer debugging their sender reads), the
 * topic rules, and the provider definition the registry, the CDK stack and the local runtime read.
 */
import { describe, expect, it } from 'vitest';
import { AuthenticationError, MalformedRequestError } from '../../../lambdas/core/errors.js';
import {
  GENERIC_CREDENTIALS_VARIABLE,
  GENERIC_DEFAULT_WINDOW_SECONDS,
  GENERIC_MIN_SECRET_BYTES,
  GENERIC_TOLERANCE_VARIABLE,
  genericProvider,
  genericSecretKeys,
  genericWindow,
} from '../../../lambdas/core/providers/generic/index.js';
import { GENERIC_EVENT_TYPES } from '../../../lambdas/core/providers/generic/map.js';
import { GENERIC_HEADERS } from '../../../lambdas/core/providers/generic/verify.js';
import { request } from '../support/provider.js';
import { EXAMPLE, event, exampleHeaders, generic, NOW_SECONDS, SECRET, signedRequest } from './support.js';

async function outcome(req: Parameters<ReturnType<typeof generic>['receive']>[0]): Promise<unknown> {
  return generic()
    .receive(req)
    .then(
      () => 'accepted',
      (error: unknown) => error,
    );
}

const authFailure = (message: string) =>
  expect.objectContaining({ status: 401, code: 'authentication_failed', message });
const malformed = (message: string) => expect.objectContaining({ status: 400, code: 'malformed_request', message });

describe('rules 1–4: 401 authentication_failed, with the reason', () => {
  it.each(['x-event-id', 'x-webhook-timestamp', 'x-webhook-signature'])(
    '%s absent or blank: "missing %s header"',
    async (name) => {
      for (const value of [undefined, '', '  ']) {
        expect(await outcome(request(EXAMPLE.body, exampleHeaders({ [name]: value })))).toEqual(
          authFailure(`missing ${name} header`),
        );
      }
    },
  );

  it.each([
    ['a space', 'evt 1'],
    ['201 characters', 'e'.repeat(201)],
    ['a non-ASCII character', 'evt_é'],
  ])('an x-event-id with %s: "x-event-id is not 1..200 printable characters"', async (_, id) => {
    const error = await outcome(signedRequest(event({ id })));
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toEqual(authFailure('x-event-id is not 1..200 printable characters'));
  });

  it('a timestamp that is not digits: "x-webhook-timestamp is not a Unix timestamp"', async () => {
    expect(await outcome(signedRequest(event(), { timestamp: `${EXAMPLE.timestamp}.0` }))).toEqual(
      authFailure('x-webhook-timestamp is not a Unix timestamp'),
    );
  });

  it.each([
    ['63 hex digits', `v1=${EXAMPLE.signature.slice(3, 66)}`],
    ['the Standard Webhooks form', `v1,${EXAMPLE.signature.slice(3)}`],
  ])('a signature of %s: "x-webhook-signature is not exactly one v1=<64 hex>"', async (_, signature) => {
    expect(await outcome(request(EXAMPLE.body, exampleHeaders({ 'x-webhook-signature': signature })))).toEqual(
      authFailure('x-webhook-signature is not exactly one v1=<64 hex>'),
    );
  });

  it('a well-formed signature that does not match: "signature does not match"', async () => {
    expect(
      await outcome(request(EXAMPLE.body, exampleHeaders({ 'x-webhook-signature': `v1=${'0'.repeat(64)}` }))),
    ).toEqual(authFailure('signature does not match'));
    expect(await outcome(request(`${EXAMPLE.body} `, exampleHeaders()))).toEqual(
      authFailure('signature does not match'),
    );
  });

  it('names its headers', () => {
    expect(GENERIC_HEADERS).toEqual({
      id: 'x-event-id',
      timestamp: 'x-webhook-timestamp',
      signature: 'x-webhook-signature',
    });
  });
});

describe('rules 5–8: 400 malformed_request, with the reason', () => {
  it('a body id that differs from the header: "body id does not equal x-event-id"', async () => {
    const error = await outcome(signedRequest(event({ id: 'evt_1' }), { id: 'evt_2' }));
    expect(error).toBeInstanceOf(MalformedRequestError);
    expect(error).toEqual(malformed('body id does not equal x-event-id'));
  });

  it.each([['bounce'], [7], [null]])('type %j: the reason lists every accepted type', async (type) => {
    expect(await outcome(signedRequest(event({ type })))).toEqual(
      malformed('type is not one of delivered, soft_bounce, hard_bounce, complaint, unsubscribe, subscribe'),
    );
  });

  it('the accepted types are exactly the actionable kinds', () => {
    expect(GENERIC_EVENT_TYPES).toEqual([
      'delivered',
      'soft_bounce',
      'hard_bounce',
      'complaint',
      'unsubscribe',
      'subscribe',
    ]);
  });

  it('an unreadable occurredAt: "occurredAt is not a timestamp"', async () => {
    expect(await outcome(signedRequest(event({ occurredAt: 'yesterday' })))).toEqual(
      malformed('occurredAt is not a timestamp'),
    );
    expect(await outcome(signedRequest(event({ occurredAt: -5 })))).toEqual(malformed('occurredAt is not a timestamp'));
  });
});

describe('topic', () => {
  it.each(['unsubscribe', 'subscribe'])(
    '%s carries a valid topic through, with its event id unchanged',
    async (type) => {
      const { events } = await generic().receive(signedRequest(event({ type, topic: 'weekly-digest' })));
      expect(events).toStrictEqual([
        {
          provider: 'generic',
          eventId: 'evt_1',
          recipient: 'jane@example.com',
          kind: type,
          occurredAt: Number(NOW_SECONDS) * 1000,
          detail: { providerEventType: type },
          raw: JSON.stringify(event({ type, topic: 'weekly-digest' })),
          topic: 'weekly-digest',
        },
      ]);
    },
  );

  it.each([[undefined], [null]])('unsubscribe with topic %j is global: no topic key', async (topic) => {
    const { events } = await generic().receive(signedRequest(event({ type: 'unsubscribe', topic })));
    expect(events.map((e) => e.kind)).toEqual(['unsubscribe']);
    expect(events[0]).not.toHaveProperty('topic');
  });

  it.each([[undefined], [null]])('subscribe with topic %j: "subscribe needs a topic"', async (topic) => {
    expect(await outcome(signedRequest(event({ type: 'subscribe', topic })))).toEqual(
      malformed('subscribe needs a topic'),
    );
  });

  it.each(['delivered', 'soft_bounce', 'hard_bounce', 'complaint'])(
    'a topic on %s: "topic is only allowed on unsubscribe and subscribe"',
    async (type) => {
      expect(await outcome(signedRequest(event({ type, topic: 'weekly' })))).toEqual(
        malformed('topic is only allowed on unsubscribe and subscribe'),
      );
    },
  );

  it.each([['has space'], [''], [42], ['-leading-dash']])(
    'topic %j: the reason quotes the topic pattern',
    async (topic) => {
      expect(await outcome(signedRequest(event({ type: 'unsubscribe', topic })))).toEqual(
        malformed('topic does not match ^[A-Za-z0-9][A-Za-z0-9:._-]{0,127}$'),
      );
    },
  );
});

describe('secrets at create()', () => {
  it('uses each secret as its UTF-8 bytes', () => {
    expect(genericSecretKeys([SECRET, 'ü'.repeat(16)])).toEqual([
      Buffer.from(SECRET, 'utf8'),
      Buffer.from('ü'.repeat(16), 'utf8'),
    ]);
  });

  it('counts bytes, not characters: 16 two-byte characters are 32 bytes, 31 one-byte characters are too few', () => {
    expect(GENERIC_MIN_SECRET_BYTES).toBe(32);
    expect(() => genericSecretKeys(['é'.repeat(16)])).not.toThrow();
    expect(() => genericSecretKeys([SECRET, 'x'.repeat(31)])).toThrow(
      'GENERIC_WEBHOOK_SECRETS entry 2 is shorter than 32 bytes',
    );
  });
});

describe('the provider definition', () => {
  it('names its route, variables and setting', () => {
    expect(GENERIC_CREDENTIALS_VARIABLE).toBe('GENERIC_WEBHOOK_SECRETS');
    expect(GENERIC_TOLERANCE_VARIABLE).toBe('GENERIC_WEBHOOK_TOLERANCE_SECONDS');
    expect(GENERIC_DEFAULT_WINDOW_SECONDS).toBe(300);
    expect(genericProvider).toMatchObject({
      name: 'generic',
      credentialsVariable: 'GENERIC_WEBHOOK_SECRETS',
      secretArnVariable: 'GENERIC_WEBHOOK_SECRET_ARN',
    });
    expect(genericProvider.settings).toEqual([
      {
        variable: 'GENERIC_WEBHOOK_TOLERANCE_SECONDS',
        describe:
          'How old a signed timestamp may be, whole seconds up to 48 h; ahead, the same capped at 5 min (default 300)',
      },
    ]);
  });

  it('reports the window create() uses: ±300 s by default, the age from the setting, the future capped at 300 s', () => {
    expect(genericProvider.signatureWindow?.({})).toEqual({
      window: { maxAgeMs: 300_000, maxFutureMs: 300_000 },
      variables: ['GENERIC_WEBHOOK_TOLERANCE_SECONDS'],
    });
    expect(genericProvider.signatureWindow?.({ GENERIC_WEBHOOK_TOLERANCE_SECONDS: '7200' })).toEqual({
      window: { maxAgeMs: 7_200_000, maxFutureMs: 300_000 },
      variables: ['GENERIC_WEBHOOK_TOLERANCE_SECONDS'],
    });
    expect(genericWindow({ GENERIC_WEBHOOK_TOLERANCE_SECONDS: '60' })).toEqual({
      maxAgeMs: 60_000,
      maxFutureMs: 60_000,
    });
    expect(genericWindow({ STANDARD_WEBHOOK_TOLERANCE_SECONDS: '60' })).toEqual({
      maxAgeMs: 300_000,
      maxFutureMs: 300_000,
    });
  });

  it('creates a receiver named after the route', () => {
    expect(generic().name).toBe('generic');
  });
});
