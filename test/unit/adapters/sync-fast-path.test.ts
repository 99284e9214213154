/**
 * The consumer's sync fast path when the sync queue cannot be reached (a real connection refused on a
 * closed local port, no mock): the write it follows is not failed, and the failure is logged (without
 * the address) and counted as SyncFastPathFailed once per provider whose message was not sent.
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryCounters } from '../../../lambdas/adapters/observability.js';
import { configFromEnv } from '../../../lambdas/adapters/wiring/config.js';
import { SYNC_FAST_PATH_FAILED, syncFastPath } from '../../../lambdas/adapters/wiring/sync-fast-path.js';
import { SYNC_FAST_PATH_METRICS } from '../../../lib/constructs/metric-catalog.js';
import { captureLog } from '../../integration/harness.js';

const sqs = new SQSClient({
  region: 'us-east-1',
  endpoint: 'http://127.0.0.1:1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  maxAttempts: 1,
});
afterAll(() => sqs.destroy());

const config = configFromEnv({
  SYNC_PROVIDERS: 'ses,resend',
  SYNC_QUEUE_URL: 'http://127.0.0.1:1/000000000000/ratchet-sync',
});
const queues = { queueUrl: () => 'http://127.0.0.1:1/000000000000/ratchet-sync', deadLetterUrl: () => '' };

describe('the consumer sync fast path, failing', () => {
  it('resolves (the write stands), logs a warning without the address, and counts SyncFastPathFailed per provider', async () => {
    const log = captureLog();
    const counters = new MemoryCounters();
    const send = syncFastPath(config, { sqs }, queues, { log, counters })!;
    await expect(send('reader@example.com')).resolves.toBeUndefined();
    await send('other@example.com');
    expect(Object.fromEntries(counters.totals)).toEqual({
      'SyncFastPathFailed{provider=ses}': 2,
      'SyncFastPathFailed{provider=resend}': 2,
    });
    const warnings = log.lines.filter((l) => l.level === 'warn');
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatchObject({
      message: 'sync fast path failed; the sweeper will send it',
      fields: { providers: ['ses', 'resend'], error: expect.any(String) },
    });
    expect(JSON.stringify(log.lines)).not.toContain('reader@example.com');
  });

  it('is the name the metric catalog gives the dashboard', () => {
    expect(SYNC_FAST_PATH_FAILED).toBe(SYNC_FAST_PATH_METRICS.failed);
  });

  it('is off (undefined) without providers or without a queue', () => {
    const observers = { log: captureLog(), counters: new MemoryCounters() };
    expect(syncFastPath(configFromEnv({}), { sqs }, queues, observers)).toBeUndefined();
    expect(syncFastPath(config, { sqs }, undefined, observers)).toBeUndefined();
  });
});
