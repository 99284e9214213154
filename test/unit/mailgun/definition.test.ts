/** The Mailgun provider's public contract as data: route name, variable names, default window, key bytes, claim expiry. */
import { describe, expect, it } from 'vitest';
import {
  claimExpiresAtMs,
  MAILGUN_DEFAULT_WINDOW_SECONDS,
  MAILGUN_TOLERANCE_SETTING,
  mailgunKeyBytes,
  mailgunProvider,
  mailgunWindow,
} from '../../../lambdas/core/providers/mailgun/index.js';

describe('Mailgun provider definition', () => {
  it('names its route, variables and setting exactly as documented', () => {
    expect(mailgunProvider.name).toBe('mailgun');
    expect(mailgunProvider.credentialsVariable).toBe('MAILGUN_SIGNING_KEYS');
    expect(mailgunProvider.secretArnVariable).toBe('MAILGUN_SECRET_ARN');
    expect(MAILGUN_TOLERANCE_SETTING).toBe('MAILGUN_TOLERANCE_SECONDS');
    expect(mailgunProvider.settings).toEqual([
      {
        variable: 'MAILGUN_TOLERANCE_SECONDS',
        describe:
          'How old a signed timestamp may be, whole seconds up to 48 h; ahead, the same capped at 5 min (default 32400, 9 h)',
      },
    ]);
  });

  it('defaults to a 9 h window (32400 s), 5 min ahead; the setting overrides it', () => {
    expect(MAILGUN_DEFAULT_WINDOW_SECONDS).toBe(32_400);
    expect(mailgunWindow({})).toEqual({ maxAgeMs: 32_400_000, maxFutureMs: 300_000 });
    expect(mailgunWindow({ MAILGUN_TOLERANCE_SECONDS: '90' })).toEqual({ maxAgeMs: 90_000, maxFutureMs: 90_000 });
    expect(mailgunProvider.signatureWindow!({})).toEqual({
      window: { maxAgeMs: 32_400_000, maxFutureMs: 300_000 },
      variables: ['MAILGUN_TOLERANCE_SECONDS'],
    });
    expect(mailgunProvider.signatureWindow!({ MAILGUN_TOLERANCE_SECONDS: '600' }).window).toEqual({
      maxAgeMs: 600_000,
      maxFutureMs: 300_000,
    });
  });

  it('a claim lives for the window plus a 5 min margin', () => {
    expect(claimExpiresAtMs(1_000_000, { maxAgeMs: 32_400_000, maxFutureMs: 300_000 })).toBe(
      1_000_000 + 32_400_000 + 300_000,
    );
  });

  it('signing keys are the trimmed key strings as UTF-8 bytes; an empty one is a configuration error', () => {
    expect(mailgunKeyBytes([' key-é1 ', 'k2'])).toEqual([
      Buffer.from([0x6b, 0x65, 0x79, 0x2d, 0xc3, 0xa9, 0x31]),
      Buffer.from('k2'),
    ]);
    expect(() => mailgunKeyBytes(['k', '  '])).toThrow('Mailgun signing key is empty');
  });
});
