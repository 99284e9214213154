/** The shared HTTP helper's pure parts: Retry-After, address redaction, scrubbing provider text. */
import { describe, expect, it } from 'vitest';
import { parseRetryAfter, redactEmail, scrub } from '../../../../lambdas/adapters/sync/http.js';

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
