/** The shared HTTP helper's pure parts: Retry-After, address redaction, scrubbing provider text. */
import { describe, expect, it } from 'vitest';
import { parseRetryAfter, redactEmail, scrub, waitingOutRateLimits } from '../../../../lambdas/adapters/sync/http.js';
import { SyncRateLimitedError } from '../../../../lambdas/core/sync/target.js';

const NOW = 1_800_000_000_000;

describe('parseRetryAfter', () => {
  it('reads delay-seconds and HTTP dates, and nothing else', () => {
    expect(parseRetryAfter('2', NOW)).toBe(NOW + 2000);
    expect(parseRetryAfter('0.5', NOW)).toBe(NOW + 500);
    expect(parseRetryAfter(new Date(NOW + 60_000).toUTCString(), NOW)).toBe(NOW + 60_000);
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
    expect(parseRetryAfter('', NOW)).toBeUndefined();
    expect(parseRetryAfter('soon', NOW)).toBeUndefined();
    expect(parseRetryAfter('-3', NOW)).toBeUndefined();
  });
});

describe('redactEmail and scrub', () => {
  it('keeps the first letter and the domain', () => {
    expect(redactEmail('alice@example.com')).toBe('a***@example.com');
    expect(redactEmail('@example.com')).toBe('***@example.com');
    expect(redactEmail('nobody')).toBe('***');
  });
  it('redacts every address in a provider message and blanks the secrets', () => {
    expect(scrub('Address bob@example.com is on "carol@x.org"; key SG.secret', ['SG.secret'])).toBe(
      'Address b***@example.com is on "c***@x.org"; key ***',
    );
    expect(scrub('x'.repeat(300), [])).toHaveLength(201);
  });
});

describe('waitingOutRateLimits', () => {
  const limited = (at: number) => new SyncRateLimitedError('sendgrid', at);

  it('by default (the worker) throws the first 429 at once: the shared gate owns the pause', async () => {
    let calls = 0;
    const slept: number[] = [];
    const run = async () => {
      calls++;
      throw limited(NOW + 5000);
    };
    await expect(
      waitingOutRateLimits(run, { sleep: async (ms) => void slept.push(ms) }, () => NOW),
    ).rejects.toBeInstanceOf(SyncRateLimitedError);
    expect({ calls, slept }).toEqual({ calls: 1, slept: [] });
  });

  it('with waits (reconcile) sleeps until the time named, says so, and gives up after that many in a row', async () => {
    let calls = 0;
    const slept: number[] = [];
    const told: number[] = [];
    const deps = {
      rateLimitWaits: 2,
      sleep: async (ms: number) => void slept.push(ms),
      onRateLimitWait: (e: SyncRateLimitedError) => void told.push(e.retryAtMs),
    };
    const answer = await waitingOutRateLimits(
      async () => {
        calls++;
        if (calls < 3) throw limited(NOW + calls * 1000);
        return 'page';
      },
      deps,
      () => NOW,
    );
    expect({ answer, calls, slept, told }).toEqual({
      answer: 'page',
      calls: 3,
      slept: [1000, 2000],
      told: [NOW + 1000, NOW + 2000],
    });
    calls = 0;
    await expect(
      waitingOutRateLimits(
        async () => {
          calls++;
          throw limited(NOW);
        },
        deps,
        () => NOW,
      ),
    ).rejects.toBeInstanceOf(SyncRateLimitedError);
    expect(calls).toBe(3);
    // A pause longer than the caller's bound is a quota, not a burst: thrown at once, without sleeping.
    calls = 0;
    slept.length = 0;
    await expect(
      waitingOutRateLimits(
        async () => {
          calls++;
          throw limited(NOW + 600_000);
        },
        { ...deps, rateLimitMaxWaitMs: 300_000 },
        () => NOW,
      ),
    ).rejects.toBeInstanceOf(SyncRateLimitedError);
    expect({ calls, slept }).toEqual({ calls: 1, slept: [] });
    // Any other failure is not waited out.
    calls = 0;
    await expect(
      waitingOutRateLimits(
        async () => {
          calls++;
          throw new Error('HTTP 503');
        },
        deps,
        () => NOW,
      ),
    ).rejects.toThrow('HTTP 503');
    expect(calls).toBe(1);
  });
});
