import { describe, expect, it } from 'vitest';
import { checkNames, NUMBER_VARIABLES, readNumber } from '../../../lambdas/adapters/environment.js';
import { configFromEnv } from '../../../lambdas/adapters/wiring/config.js';
import { syncQueuesFromEnv } from '../../../lambdas/adapters/wiring/sync-fast-path.js';

describe('the number variables, through the core parser', () => {
  it('honours exclusive minimums and whole numbers', () => {
    expect(() => readNumber({ PORT: '1.5' }, 'PORT')).toThrow(/^PORT must be/);
    expect(readNumber({ SECRETS_CACHE_SECONDS: '0.25' }, 'SECRETS_CACHE_SECONDS')).toBe(0.25);
    expect(() => readNumber({ PORT: '80.5' }, 'PORT')).toThrow(/^PORT must be a whole number/);
    expect(readNumber({ PORT: '0' }, 'PORT')).toBe(0);
    // Whole numbers are written as such: no leading zero, no `.0`.
    expect(() => readNumber({ PORT: '080' }, 'PORT')).toThrow(
      'PORT must be a whole number from 0 to 65535 (0 picks a free port), got "080"',
    );
    expect(() => readNumber({ PORT: '80.0' }, 'PORT')).toThrow(/^PORT must be a whole number/);
  });
});

describe('the runtime reads its variables through the contract', () => {
  it('with the declared defaults', () => {
    const config = configFromEnv({});
    expect(config.inboxTtlDays).toBe(NUMBER_VARIABLES.INBOX_TTL_DAYS.default);
    expect(config.inboxTtlDays).toBe(30);
    expect(config.secretsCacheSeconds).toBe(60);
    expect(config.inboxTable).toBe('ratchet-inbox');
    expect(config.suppressionTable).toBe('ratchet-suppressions');
  });

  it('with the values given', () => {
    const config = configFromEnv({ INBOX_TTL_DAYS: '0.5', SECRETS_CACHE_SECONDS: '0', INBOX_TABLE: 'a-inbox' });
    expect([config.inboxTtlDays, config.secretsCacheSeconds, config.inboxTable]).toEqual([0.5, 0, 'a-inbox']);
  });

  it('checks resource names and endpoints that are set', () => {
    expect(checkNames({ QUEUE_NAME: '', DYNAMODB_ENDPOINT: '', INBOX_TABLE: 'ok-table' })).toEqual([]);
    expect(checkNames({ INBOX_TABLE: '', SQS_ENDPOINT: 'ftp://x', QUEUE_NAME: 'q'.repeat(77) })).toEqual([
      `INBOX_TABLE must be 3-255 letters, digits, '_', '-' or '.' (a DynamoDB table name), got ""`,
      `QUEUE_NAME must be 1-76 letters, digits, '_' or '-' (an SQS queue name, before the -dlq suffix), got "${'q'.repeat(77)}"`,
      'SQS_ENDPOINT must be an http(s) URL, got "ftp://x"',
    ]);
  });

  it('checks the sync queue URLs that are set: the CLI, npm start and the Lambdas refuse one that is no queue URL', async () => {
    const aws = 'https://sqs.eu-west-1.amazonaws.com/123456789012/ratchet-sync';
    const local = 'http://127.0.0.1:4566/000000000000/ratchet-sync-dead-letters';
    expect(checkNames({ SYNC_QUEUE_URL: aws, SYNC_DEAD_LETTER_QUEUE_URL: local })).toEqual([]);
    expect(checkNames({ SYNC_QUEUE_URL: '' })).toEqual([]);
    const expected = 'an SQS queue URL: http(s)://host/account/queue-name';
    for (const bad of ['ratchet-sync', 'sqs.eu-west-1.amazonaws.com/1/q', 'https://sqs.example.com/', 'ftp://h/1/q'])
      expect(checkNames({ SYNC_QUEUE_URL: bad })).toEqual([
        `SYNC_QUEUE_URL must be ${expected}, got ${JSON.stringify(bad)}`,
      ]);
    expect(checkNames({ SYNC_DEAD_LETTER_QUEUE_URL: 'https://h/1/a b' })).toEqual([
      `SYNC_DEAD_LETTER_QUEUE_URL must be ${expected}, got "https://h/1/a b"`,
    ]);
    // The Lambdas (consumer, sync worker) read them at cold start: a bad one fails there, naming it.
    expect(() => syncQueuesFromEnv({ SYNC_QUEUE_URL: 'ratchet-sync' })).toThrow(
      `SYNC_QUEUE_URL must be ${expected}, got "ratchet-sync"`,
    );
    expect(() => syncQueuesFromEnv({ SYNC_QUEUE_URL: aws, SYNC_DEAD_LETTER_QUEUE_URL: 'dlq' })).toThrow(
      /^SYNC_DEAD_LETTER_QUEUE_URL must be/,
    );
    expect(await syncQueuesFromEnv({ SYNC_QUEUE_URL: aws })!.queueUrl()).toBe(aws);
  });
});
