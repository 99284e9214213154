import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { assertStartable, assertStartableBeforeWriting, readPort } from '../../../lib/local/startup-checks.js';
import { StartupError } from '../../../lib/local/startup-error.js';

function problems(settings: Record<string, string>): string[] {
  try {
    assertStartable(settings);
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(StartupError);
    return (error as Error).message.split('\n');
  }
}

describe('PORT', () => {
  it.each([
    [undefined, 3000],
    ['', 3000],
    ['0', 0],
    [' 8080 ', 8080],
    ['65535', 65535],
  ])('%j reads as %d', (value, port) => {
    expect(readPort({ PORT: value })).toBe(port);
  });

  it.each(['abc', '-1', '65536', '80.5', '1e3', '0x50', '123456'])(
    '%j is refused, naming PORT and the value',
    (value) => {
      expect(() => readPort({ PORT: value })).toThrow(
        new StartupError(
          `PORT must be a whole number from 0 to 65535 (0 picks a free port), got ${JSON.stringify(value)}`,
        ),
      );
    },
  );
});

describe('everything npm start checks before starting', () => {
  it('passes a clean environment (no provider configured)', () => {
    expect(problems({})).toEqual([]);
  });

  it('names every bad variable, one line each', () => {
    expect(
      problems({
        PORT: 'x',
        INBOX_TABLE: 'a',
        DYNAMODB_ENDPOINT: 'localhost:8000',
        SECRETS_CACHE_SECONDS: '-1',
        SOFT_BOUNCE_WINDOW_DAYS: '0',
        GENERIC_WEBHOOK_SECRETS: 'short',
        SNS_TOPIC_ARNS: 'not-an-arn',
      }),
    ).toEqual([
      'PORT must be a whole number from 0 to 65535 (0 picks a free port), got "x"',
      `INBOX_TABLE must be 3-255 letters, digits, '_', '-' or '.' (a DynamoDB table name), got "a"`,
      'DYNAMODB_ENDPOINT must be an http(s) URL, got "localhost:8000"',
      'SECRETS_CACHE_SECONDS must be a non-negative number of seconds, got "-1"',
      'SOFT_BOUNCE_WINDOW_DAYS must be a number of days above 0 and at most 3650, got "0"',
      // SES's credentials are public topic ARNs: the value is shown, it helps.
      'SNS_TOPIC_ARNS: SNS topic allowlist entry is not an SNS topic ARN: not-an-arn',
      'GENERIC_WEBHOOK_SECRETS entry 1 is shorter than 32 bytes',
    ]);
  });

  const SES = { SNS_TOPIC_ARNS: 'arn:aws:sns:us-east-1:000000000000:ratchet-demo' };

  it('refuses an SNS age limit at or above the inbox TTL, in one line naming both', () => {
    expect(problems({ ...SES, SNS_MAX_AGE_SECONDS: '2592000' })).toEqual([
      'SNS_MAX_AGE_SECONDS is 2592000 s, at or above INBOX_TTL_DAYS (30 days = 2592000 s): a replay older than its inbox row would be admitted again. Lower it, or unset it for the default (INBOX_TTL_DAYS less one day)',
    ]);
    expect(problems({ ...SES, INBOX_TTL_DAYS: '7', SNS_MAX_AGE_SECONDS: '700000' })).toEqual([
      'SNS_MAX_AGE_SECONDS is 700000 s, at or above INBOX_TTL_DAYS (7 days = 604800 s): a replay older than its inbox row would be admitted again. Lower it, or unset it for the default (INBOX_TTL_DAYS less one day)',
    ]);
    expect(problems({ ...SES, INBOX_TTL_DAYS: '7' })).toEqual([]);
  });

  it('checks the SES feed queue names', () => {
    expect(problems({ SES_QUEUE_NAME: 'has space', SES_DEAD_LETTER_QUEUE: 'x'.repeat(81) })).toEqual([
      `SES_QUEUE_NAME must be 1-80 letters, digits, '_' or '-' (an SQS queue name), got "has space"`,
      `SES_DEAD_LETTER_QUEUE must be 1-80 letters, digits, '_' or '-' (an SQS queue name), got "${'x'.repeat(81)}"`,
    ]);
    expect(problems({ SES_QUEUE_NAME: 'my-feed', SES_DEAD_LETTER_QUEUE: 'my_dead-letters' })).toEqual([]);
  });
});

describe('the check before anything is written', () => {
  const parent = mkdtempSync(join(tmpdir(), 'ratchet-before-writing-'));
  afterAll(() => rmSync(parent, { recursive: true, force: true }));
  const check = (env: Record<string, string>, dir: string) =>
    assertStartableBeforeWriting(env, dir, { port: true, syncTargets: true });

  it('passes the demo settings, and refuses a bad variable or a keyless sync provider, writing nothing', async () => {
    const dir = join(parent, 'data');
    await expect(check({}, dir)).resolves.toMatchObject({ demoCredentials: expect.any(Object) });
    await expect(check({ SYNC_QUEUE_URL: 'q' }, dir)).rejects.toThrow(/^SYNC_QUEUE_URL must be an SQS queue URL/);
    await expect(check({ SYNC_PROVIDERS: 'resend' }, dir)).rejects.toThrow(
      'SYNC_PROVIDERS includes resend but RESEND_API_KEY is not set',
    );
    expect(existsSync(dir)).toBe(false);
  });
});
