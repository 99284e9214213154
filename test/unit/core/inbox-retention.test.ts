/** Every provider's default window, the 48 h cap (SNS: the inbox TTL), and the inbox TTL checks that `npm start` and `cdk synth` run. */
import { describe, expect, it } from 'vitest';
import {
  assertInboxOutlivesWindows,
  assertSnsMaxAgeBelowInboxTtl,
  INBOX_RETENTION_MARGIN_MS,
  minimumInboxTtlDays,
} from '../../../lambdas/core/inbox-retention.js';
import { PROVIDERS } from '../../../lambdas/core/providers/index.js';

const HOUR = 3_600_000;
const windowOf = (name: string, settings: Record<string, string> = {}) =>
  PROVIDERS.find((p) => p.name === name)!.signatureWindow?.(settings);

/** A provider whose only signature window is `maxAgeMs` of age and no future skew. */
const windowedProvider = (maxAgeMs: number) => ({
  name: 'edge',
  credentialsVariable: 'X',
  settings: [],
  signatureWindow: () => ({ window: { maxAgeMs, maxFutureMs: 0 }, variables: ['EDGE_WINDOW'] }),
  create: () => {
    throw new Error('unused');
  },
});

describe('default signature windows', () => {
  it.each([
    ['sendgrid', 25 * HOUR, ['SENDGRID_TOLERANCE_SECONDS']],
    ['mailgun', 9 * HOUR, ['MAILGUN_TOLERANCE_SECONDS']],
    ['standard', 5 * 60_000, ['STANDARD_WEBHOOK_TOLERANCE_SECONDS']],
    ['generic', 5 * 60_000, ['GENERIC_WEBHOOK_TOLERANCE_SECONDS']],
    // The inbox TTL (30 days) less one day: SNS never re-signs, so only the inbox row bounds a message's age.
    ['ses', 29 * 24 * HOUR, ['SNS_MAX_AGE_SECONDS', 'SNS_MAX_FUTURE_SECONDS']],
  ])('%s: max age %d ms, future skew 5 min, set by %j', (name, maxAgeMs, variables) => {
    expect(windowOf(name)).toEqual({ window: { maxAgeMs, maxFutureMs: 300_000 }, variables });
  });

  it('Postmark signs no time, so it has no window', () => {
    expect(windowOf('postmark')).toBeUndefined();
  });

  it.each([
    ['sendgrid', 'SENDGRID_TOLERANCE_SECONDS'],
    ['mailgun', 'MAILGUN_TOLERANCE_SECONDS'],
    ['standard', 'STANDARD_WEBHOOK_TOLERANCE_SECONDS'],
    ['generic', 'GENERIC_WEBHOOK_TOLERANCE_SECONDS'],
  ])('%s accepts %s up to 48 h and refuses one second more', (name, variable) => {
    expect(windowOf(name, { [variable]: '172800' })!.window.maxAgeMs).toBe(48 * HOUR);
    expect(() => windowOf(name, { [variable]: '172801' })).toThrow(new RegExp(variable));
  });

  it('ses accepts SNS_MAX_FUTURE_SECONDS up to 48 h and refuses one second more', () => {
    expect(windowOf('ses', { SNS_MAX_FUTURE_SECONDS: '172800' })!.window.maxFutureMs).toBe(48 * HOUR);
    expect(() => windowOf('ses', { SNS_MAX_FUTURE_SECONDS: '172801' })).toThrow(/SNS_MAX_FUTURE_SECONDS/);
  });

  it("ses's age limit follows INBOX_TTL_DAYS: a day less by default, never below 3900 s", () => {
    expect(windowOf('ses', { INBOX_TTL_DAYS: '10' })!.window.maxAgeMs).toBe(9 * 24 * HOUR);
    expect(windowOf('ses', { INBOX_TTL_DAYS: '1.5' })!.window.maxAgeMs).toBe(12 * HOUR);
    expect(windowOf('ses', { INBOX_TTL_DAYS: '1' })!.window.maxAgeMs).toBe(3_900_000);
  });

  it('ses accepts SNS_MAX_AGE_SECONDS up to one second below the inbox TTL, and refuses the TTL itself', () => {
    expect(windowOf('ses', { SNS_MAX_AGE_SECONDS: '2591999' })!.window.maxAgeMs).toBe(2_591_999_000);
    expect(() => windowOf('ses', { SNS_MAX_AGE_SECONDS: '2592000' })).toThrow(
      'SNS_MAX_AGE_SECONDS is 2592000 s, at or above INBOX_TTL_DAYS (30 days = 2592000 s): a replay older than its inbox row would be admitted again. Lower it, or unset it for the default (INBOX_TTL_DAYS less one day)',
    );
    expect(windowOf('ses', { SNS_MAX_AGE_SECONDS: '2592000', INBOX_TTL_DAYS: '31' })!.window.maxAgeMs).toBe(
      30 * 24 * HOUR,
    );
  });
});

describe('assertSnsMaxAgeBelowInboxTtl (what cdk synth and npm start run)', () => {
  it('passes with the defaults, for any TTL', () => {
    for (const days of [1, 2, 30, 365]) expect(() => assertSnsMaxAgeBelowInboxTtl({}, days)).not.toThrow();
  });

  it('refuses a maximum age at or above the TTL it is given, in one line naming both variables', () => {
    const error = catchError(() => assertSnsMaxAgeBelowInboxTtl({ SNS_MAX_AGE_SECONDS: String(7 * 86_400) }, 7));
    expect(error).toMatch(/^SNS_MAX_AGE_SECONDS is 604800 s, at or above INBOX_TTL_DAYS \(7 days = 604800 s\)/);
    expect(error).not.toContain('\n');
    expect(() => assertSnsMaxAgeBelowInboxTtl({ SNS_MAX_AGE_SECONDS: String(7 * 86_400 - 1) }, 7)).not.toThrow();
  });

  it('judges by the TTL passed in, not a stray INBOX_TTL_DAYS in the settings', () => {
    expect(() =>
      assertSnsMaxAgeBelowInboxTtl({ INBOX_TTL_DAYS: '90', SNS_MAX_AGE_SECONDS: String(30 * 86_400) }, 30),
    ).toThrow(/at or above/);
    expect(() =>
      assertInboxOutlivesWindows({ INBOX_TTL_DAYS: '90', SNS_MAX_AGE_SECONDS: String(30 * 86_400) }, 30),
    ).toThrow(/at or above/);
  });

  it('an age just below the TTL still fails the wider check: skew and margin must fit too', () => {
    const settings = { SNS_MAX_AGE_SECONDS: String(30 * 86_400 - 60) };
    expect(() => assertSnsMaxAgeBelowInboxTtl(settings, 30)).not.toThrow();
    expect(() => assertInboxOutlivesWindows(settings, 30)).toThrow(/ses \(SNS_MAX_AGE_SECONDS, SNS_MAX_FUTURE_SECONDS/);
  });
});

describe('assertInboxOutlivesWindows', () => {
  it('passes with the 30-day default and every default window', () => {
    expect(() => assertInboxOutlivesWindows({}, 30)).not.toThrow();
  });

  it('passes with 30 days and every window at the 48 h cap', () => {
    const widest = {
      SENDGRID_TOLERANCE_SECONDS: '172800',
      MAILGUN_TOLERANCE_SECONDS: '172800',
      STANDARD_WEBHOOK_TOLERANCE_SECONDS: '172800',
      GENERIC_WEBHOOK_TOLERANCE_SECONDS: '172800',
      SNS_MAX_AGE_SECONDS: '172800',
      SNS_MAX_FUTURE_SECONDS: '172800',
    };
    expect(() => assertInboxOutlivesWindows(widest, 30)).not.toThrow();
  });

  it('refuses a TTL shorter than the SendGrid default window, naming the variables', () => {
    expect(() => assertInboxOutlivesWindows({}, 1)).toThrow(
      /INBOX_TTL_DAYS \(context inboxTtlDays\) is 1 days.*sendgrid \(SENDGRID_TOLERANCE_SECONDS: 25\.08 h\).*Raise INBOX_TTL_DAYS to at least 2/,
    );
  });

  it('names only the providers whose windows are too long', () => {
    const error = catchError(() => assertInboxOutlivesWindows({ MAILGUN_TOLERANCE_SECONDS: '172800' }, 2));
    expect(error).toMatch(/mailgun \(MAILGUN_TOLERANCE_SECONDS/);
    expect(error).not.toMatch(/sendgrid|standard|generic|ses/);
  });

  it('counts the future skew and the margin, not only the age', () => {
    // 48 h of age + 48 h of SNS future skew + 1 h of margin is 97 h: four days are not enough, five are.
    const settings = { SNS_MAX_AGE_SECONDS: '172800', SNS_MAX_FUTURE_SECONDS: '172800' };
    expect(() => assertInboxOutlivesWindows(settings, 4)).toThrow(
      /ses \(SNS_MAX_AGE_SECONDS, SNS_MAX_FUTURE_SECONDS: 96 h\)/,
    );
    expect(() => assertInboxOutlivesWindows(settings, 5)).not.toThrow();
  });

  it('is strict at the boundary: window + margin exactly fits, one millisecond less does not', () => {
    const day = 86_400_000;
    expect(() => assertInboxOutlivesWindows({}, 1, [windowedProvider(day - INBOX_RETENTION_MARGIN_MS)])).not.toThrow();
    expect(() => assertInboxOutlivesWindows({}, 1, [windowedProvider(day - INBOX_RETENTION_MARGIN_MS + 1)])).toThrow(
      /EDGE_WINDOW/,
    );
  });

  it('says exactly what is wrong and what to do, listing every provider that does not fit', () => {
    const settings = { SENDGRID_TOLERANCE_SECONDS: '172800', MAILGUN_TOLERANCE_SECONDS: '172800' };
    expect(() => assertInboxOutlivesWindows(settings, 2)).toThrow(
      new Error(
        'INBOX_TTL_DAYS (context inboxTtlDays) is 2 days, shorter than the signature window plus 1 h of ' +
          'sendgrid (SENDGRID_TOLERANCE_SECONDS: 48.08 h); mailgun (MAILGUN_TOLERANCE_SECONDS: 48.08 h): ' +
          'a replay inside the window would be admitted again. Raise INBOX_TTL_DAYS to at least 3 or narrow those windows.',
      ),
    );
  });

  it.each([0, -1, Number.NaN])('refuses a TTL of %d days', (days) => {
    expect(() => assertInboxOutlivesWindows({}, days)).toThrow(/INBOX_TTL_DAYS/);
  });

  it('propagates a malformed window setting with its name', () => {
    expect(() => assertInboxOutlivesWindows({ MAILGUN_TOLERANCE_SECONDS: '9h' }, 30)).toThrow(
      /MAILGUN_TOLERANCE_SECONDS/,
    );
  });
});

describe('minimumInboxTtlDays', () => {
  it('is the first whole day that outlives the window plus the margin', () => {
    expect(minimumInboxTtlDays({}, [windowedProvider(2 * 86_400_000 - INBOX_RETENTION_MARGIN_MS)])).toBe(2);
    expect(minimumInboxTtlDays({}, [windowedProvider(2 * 86_400_000 - INBOX_RETENTION_MARGIN_MS + 1)])).toBe(3);
  });

  it('searches up to ten years, then gives up saying so', () => {
    expect(minimumInboxTtlDays({}, [windowedProvider(3650 * 86_400_000 - INBOX_RETENTION_MARGIN_MS)])).toBe(3650);
    expect(() => minimumInboxTtlDays({}, [windowedProvider(3650 * 86_400_000)])).toThrow(
      new Error('no inbox TTL up to 3650 days outlives these signature windows'),
    );
  });
});

function catchError(fn: () => void): string {
  try {
    fn();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('did not throw');
}
