/** Every provider's default window, the 48 h cap, and the inbox TTL check that `npm start` and `cdk synth` run. */
import { describe, expect, it } from 'vitest';
import { assertInboxOutlivesWindows, INBOX_RETENTION_MARGIN_MS } from '../../../lambdas/core/inbox-retention.js';
import { PROVIDERS } from '../../../lambdas/core/providers/index.js';

const HOUR = 3_600_000;
const windowOf = (name: string, settings: Record<string, string> = {}) =>
  PROVIDERS.find((p) => p.name === name)!.signatureWindow?.(settings);

describe('default signature windows', () => {
  it.each([
    ['sendgrid', 25 * HOUR, ['SENDGRID_TOLERANCE_SECONDS']],
    ['mailgun', 9 * HOUR, ['MAILGUN_TOLERANCE_SECONDS']],
    ['standard', 5 * 60_000, ['STANDARD_WEBHOOK_TOLERANCE_SECONDS']],
    ['generic', 5 * 60_000, ['GENERIC_WEBHOOK_TOLERANCE_SECONDS']],
    ['ses', 3_900_000, ['SNS_MAX_AGE_SECONDS', 'SNS_MAX_FUTURE_SECONDS']],
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
    ['ses', 'SNS_MAX_AGE_SECONDS'],
  ])('%s accepts %s up to 48 h and refuses one second more', (name, variable) => {
    expect(windowOf(name, { [variable]: '172800' })!.window.maxAgeMs).toBe(48 * HOUR);
    expect(() => windowOf(name, { [variable]: '172801' })).toThrow(new RegExp(variable));
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
    expect(() => assertInboxOutlivesWindows(settings, 4)).toThrow(/ses \(SNS_MAX_AGE_SECONDS, SNS_MAX_FUTURE_SECONDS: 96 h\)/);
    expect(() => assertInboxOutlivesWindows(settings, 5)).not.toThrow();
  });

  it('is strict at the boundary: window + margin exactly fits, one millisecond less does not', () => {
    const provider = (maxAgeMs: number) => ({
      name: 'edge',
      credentialsVariable: 'X',
      settings: [],
      signatureWindow: () => ({ window: { maxAgeMs, maxFutureMs: 0 }, variables: ['EDGE_WINDOW'] }),
      create: () => {
        throw new Error('unused');
      },
    });
    const day = 86_400_000;
    expect(() => assertInboxOutlivesWindows({}, 1, [provider(day - INBOX_RETENTION_MARGIN_MS)])).not.toThrow();
    expect(() => assertInboxOutlivesWindows({}, 1, [provider(day - INBOX_RETENTION_MARGIN_MS + 1)])).toThrow(/EDGE_WINDOW/);
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
    expect(() => assertInboxOutlivesWindows({ MAILGUN_TOLERANCE_SECONDS: '9h' }, 30)).toThrow(/MAILGUN_TOLERANCE_SECONDS/);
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
