/**
 * The consumer's sync fast path when the sync queue accepts the connection and never answers (a real
 * socket on a local server that reads the request and stays silent, no mock). The send waits inside the
 * write, so without a bound one stalled call would hold the consumer's batch until the function timed
 * out and the whole batch came back. Bounded, the write goes on, and the failure is logged and counted
 * like any other; the marker stays pending for the sweeper.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryCounters } from '../../../lambdas/adapters/observability.js';
import { configFromEnv } from '../../../lambdas/adapters/wiring/config.js';
import { FAST_PATH_TIMEOUT_MS, syncFastPath } from '../../../lambdas/adapters/wiring/sync-fast-path.js';
import { CONSUMER } from '../../../lib/definitions.js';
import { captureLog } from '../../integration/harness.js';

describe('the consumer sync fast path, against a queue that never answers', () => {
  let server: Server;
  let url: string;
  const sockets = new Set<Socket>();
  let requests = 0;
  beforeAll(async () => {
    server = createServer((socket) => {
      sockets.add(socket);
      socket.on('data', () => requests++);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  it('gives up after its bound: the write resolves, and the message is logged and counted as failed', async () => {
    const sqs = new SQSClient({
      region: 'us-east-1',
      endpoint: url,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const queueUrl = `${url}/000000000000/ratchet-sync`;
    const config = configFromEnv({ SYNC_PROVIDERS: 'ses', SYNC_QUEUE_URL: queueUrl });
    const log = captureLog();
    const counters = new MemoryCounters();
    const send = syncFastPath(
      config,
      { sqs },
      { queueUrl: () => queueUrl, deadLetterUrl: () => '' },
      { log, counters },
      {
        timeoutMs: 300,
      },
    )!;
    const started = performance.now();
    const outcome = await Promise.race([
      send('stalled@example.com').then(() => 'resolved'),
      new Promise((resolve) => setTimeout(() => resolve('still waiting'), 5_000)),
    ]);
    expect(outcome).toBe('resolved');
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(requests).toBeGreaterThan(0);
    expect(Object.fromEntries(counters.totals)).toEqual({ 'SyncFastPathFailed{provider=ses}': 1 });
    expect(JSON.stringify(log.lines)).not.toContain('stalled@example.com');
    sqs.destroy();
  });

  it('the bound leaves most of the consumer function timeout to its batch', () => {
    expect(FAST_PATH_TIMEOUT_MS).toBeGreaterThan(0);
    expect(FAST_PATH_TIMEOUT_MS).toBeLessThanOrEqual((CONSUMER.timeoutSeconds * 1000) / 4);
  });
});
