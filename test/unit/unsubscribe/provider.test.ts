/**
 * The `unsubscribe` provider on its own: the exact event for each action, the dedup key, and each
 * refusal's error class and message (the edge logs the message and answers by the class's status).
 */
import { describe, expect, it } from 'vitest';
import { AuthenticationError, MalformedRequestError } from '../../../lambdas/core/errors.js';
import { unsubscribeEventId, unsubscribeRequestBody } from '../../../lambdas/core/unsubscribe/provider.js';
import { deriveTokenKeys, issueToken } from '../../../lambdas/core/unsubscribe/token.js';
import { unsubscribeProvider } from './support.js';

const SECRET = 'provider-test-secret-0123456789abcdefgh';
const NOW = Date.UTC(2026, 5, 1);
const keys = deriveTokenKeys([SECRET]);
const topicToken = issueToken({ email: 'jane@example.com', topic: 'newsletter' }, keys, NOW - 1000);
const globalToken = issueToken({ email: 'jane@example.com', topic: '*' }, keys, NOW - 1000);

const provider = unsubscribeProvider(SECRET, NOW);
const receive = (body: string | Buffer) =>
  provider.receive({ body: Buffer.isBuffer(body) ? body : Buffer.from(body), headers: {} });

describe('the unsubscribe provider', () => {
  it('the request body is the canonical JSON of token and action, in UTF-8', () => {
    expect(unsubscribeRequestBody('tök', 'resubscribe')).toEqual(
      Buffer.from('{"token":"tök","action":"resubscribe"}', 'utf8'),
    );
  });

  it('the event id is the SHA-256 of `action\\ntoken`, so each link and action is one event', () => {
    expect(unsubscribeEventId('TOKEN', 'unsubscribe')).toBe(
      '14eb820969360c4cf8782de8e19534893fd39d1437392f5e481208f10631d019',
    );
    expect(unsubscribeEventId('TOKEN', 'resubscribe')).toBe(
      'c2b9e8ede194818b7b765ba6a19c3f3b95af296c5cd37938d590fe1ff4e92ea3',
    );
  });

  it('a resubscribe to a topic is a `subscribe` event of type resubscribe', async () => {
    const raw = JSON.stringify({ token: topicToken, action: 'resubscribe' });
    expect(await receive(raw)).toEqual({
      events: [
        {
          provider: 'unsubscribe',
          eventId: unsubscribeEventId(topicToken, 'resubscribe'),
          recipient: 'jane@example.com',
          kind: 'subscribe',
          topic: 'newsletter',
          occurredAt: NOW,
          detail: { providerEventType: 'resubscribe' },
          raw,
        },
      ],
    });
  });

  it('a global unsubscribe is an `unsubscribe` event with no topic', async () => {
    const raw = JSON.stringify({ token: globalToken, action: 'unsubscribe' });
    expect(await receive(raw)).toEqual({
      events: [
        {
          provider: 'unsubscribe',
          eventId: unsubscribeEventId(globalToken, 'unsubscribe'),
          recipient: 'jane@example.com',
          kind: 'unsubscribe',
          occurredAt: NOW,
          detail: { providerEventType: 'one_click_unsubscribe' },
          raw,
        },
      ],
    });
  });

  it('refuses a resubscribe on a global token', async () => {
    const refused = receive(JSON.stringify({ token: globalToken, action: 'resubscribe' }));
    await expect(refused).rejects.toBeInstanceOf(MalformedRequestError);
    await expect(refused).rejects.toThrow('a global unsubscribe has no resubscribe');
  });

  it('refuses a bad token with the verification reason', async () => {
    const refused = receive(JSON.stringify({ token: 'AAAA', action: 'unsubscribe' }));
    await expect(refused).rejects.toBeInstanceOf(AuthenticationError);
    await expect(refused).rejects.toThrow('unsubscribe token malformed');
    const other = issueToken(
      { email: 'jane@example.com', topic: 'newsletter' },
      deriveTokenKeys(['provider-other-secret-0123456789abcdefgh']),
      NOW,
    );
    await expect(receive(JSON.stringify({ token: other, action: 'unsubscribe' }))).rejects.toThrow(
      'unsubscribe token unknown_key',
    );
  });

  it('refuses a body that is not JSON', async () => {
    const refused = receive('nope');
    await expect(refused).rejects.toBeInstanceOf(MalformedRequestError);
    await expect(refused).rejects.toThrow('unsubscribe request is not JSON');
  });

  it('refuses JSON without a string token and a known action', async () => {
    for (const body of [
      { token: 1, action: 'unsubscribe' },
      { action: 'unsubscribe' },
      { token: topicToken, action: 'delete' },
      { token: topicToken },
      null,
    ]) {
      const refused = receive(JSON.stringify(body));
      await expect(refused, JSON.stringify(body)).rejects.toBeInstanceOf(MalformedRequestError);
      await expect(refused, JSON.stringify(body)).rejects.toThrow('unsubscribe request needs a token and an action');
    }
  });
});
