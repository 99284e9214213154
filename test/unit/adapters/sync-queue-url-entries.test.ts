/**
 * The Lambdas that read SYNC_QUEUE_URL (the consumer's fast path, the sync worker, the sweeper) refuse one
 * that is no SQS queue URL at cold start, naming it, as `npm start` and the CLI do: never a send to a
 * malformed URL on the first change.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';

const ENTRIES = ['../../../lambdas/consumer.js', '../../../lambdas/sync-worker.js', '../../../lambdas/sync-sweeper.js'];

describe('a SYNC_QUEUE_URL that is no queue URL fails the cold start', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.resetModules();
  });

  it.each(ENTRIES)('%s', async (entry) => {
    vi.stubEnv('SYNC_QUEUE_URL', 'ratchet-sync');
    vi.resetModules();
    await expect(import(entry)).rejects.toThrow(
      'SYNC_QUEUE_URL must be an SQS queue URL: http(s)://host/account/queue-name, got "ratchet-sync"',
    );
  });

  it.each(ENTRIES)('%s starts with a queue URL', async (entry) => {
    vi.stubEnv('SYNC_QUEUE_URL', 'https://sqs.us-east-1.amazonaws.com/123456789012/ratchet-sync');
    vi.stubEnv('AWS_REGION', 'us-east-1');
    vi.resetModules();
    await expect(import(entry)).resolves.toHaveProperty('handler');
  });
});
