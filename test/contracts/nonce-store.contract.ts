/**
 * The NonceStore port's contract (lambdas/core/provider.ts), run against the Mailgun tests'
 * MemoryNonceStore (unit) and DynamoNonceStore on dynalite (integration). Times stay whole seconds
 * away from every expiry: DynamoDB's TTL is in seconds, so sub-second edges are not part of the contract.
 */
import { describe, expect, it } from 'vitest';
import type { NonceStore } from '../../lambdas/core/provider.js';
import { uniqueId } from './unique-id.js';

const MINUTE_MS = 60_000;

/** `make(now)` gives a store reading the clock `now`; claims from other cases may share its table. */
export function describeNonceStoreContract(
  name: string,
  make: (now: () => number) => NonceStore | Promise<NonceStore>,
) {
  describe(`NonceStore contract: ${name}`, () => {
    const setup = async () => {
      const clock = { now: Date.UTC(2026, 0, 1) };
      return { clock, nonces: await make(() => clock.now), token: uniqueId('tok') };
    };

    it('the first claim wins; the same fingerprint again is a retry and passes; another is a replay', async () => {
      const { clock, nonces, token } = await setup();
      const expires = clock.now + 10 * MINUTE_MS;
      expect(await nonces.claim('mailgun', token, 'fp-a', expires)).toBe(true);
      expect(await nonces.claim('mailgun', token, 'fp-a', expires)).toBe(true);
      expect(await nonces.claim('mailgun', token, 'fp-b', expires)).toBe(false);
    });

    it('a claim holds until its expiry, even later on the clock', async () => {
      const { clock, nonces, token } = await setup();
      const expires = clock.now + 10 * MINUTE_MS;
      expect(await nonces.claim('mailgun', token, 'fp-a', expires)).toBe(true);
      clock.now = expires - 2_000;
      expect(await nonces.claim('mailgun', token, 'fp-b', expires)).toBe(false);
    });

    it('namespaces and tokens do not collide', async () => {
      const { clock, nonces, token } = await setup();
      const expires = clock.now + 10 * MINUTE_MS;
      expect(await nonces.claim('mailgun', token, 'fp-a', expires)).toBe(true);
      expect(await nonces.claim('other', token, 'fp-b', expires)).toBe(true);
      expect(await nonces.claim('mailgun', `${token}-2`, 'fp-b', expires)).toBe(true);
    });

    it('after expiry the token is free again, and the new claim holds against the old body', async () => {
      const { clock, nonces, token } = await setup();
      const expires = clock.now + 10 * MINUTE_MS;
      expect(await nonces.claim('mailgun', token, 'fp-a', expires)).toBe(true);
      clock.now = expires + 2_000;
      expect(await nonces.claim('mailgun', token, 'fp-b', clock.now + 10 * MINUTE_MS)).toBe(true);
      expect(await nonces.claim('mailgun', token, 'fp-a', clock.now + 10 * MINUTE_MS)).toBe(false);
    });
  });
}
