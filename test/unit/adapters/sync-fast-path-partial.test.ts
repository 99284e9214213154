/**
 * The fast path when SendMessageBatch succeeds as a call but fails some entries (`Failed`): only the
 * messages SQS did not take count as SyncFastPathFailed; the others are on the queue. A partial failure
 * is something no emulator produces on cue with a valid body, hence aws-sdk-client-mock.
 */
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryCounters } from '../../../lambdas/adapters/observability.js';
import { SqsSyncQueue } from '../../../lambdas/adapters/sqs-sync-queue.js';
import { configFromEnv } from '../../../lambdas/adapters/wiring/config.js';
import { syncFastPath } from '../../../lambdas/adapters/wiring/sync-fast-path.js';
import { SyncSendError } from '../../../lambdas/core/sync/message.js';
import { captureLog } from '../../integration/harness.js';

const URL = 'https://sqs.us-east-1.amazonaws.com/000000000000/ratchet-sync';
const config = configFromEnv({ SYNC_PROVIDERS: 'ses,resend', SYNC_QUEUE_URL: URL });
const queues = { queueUrl: () => URL, deadLetterUrl: () => '' };

describe('the sync fast path, partly refused', () => {
  const sqs = mockClient(SQSClient);
  afterEach(() => sqs.reset());

  it('counts SyncFastPathFailed for the refused entries only', async () => {
    // Entries are numbered in the order the batch took them: a@ses, a@resend, b@ses, b@resend.
    sqs.on(SendMessageBatchCommand).resolves({
      Successful: [{ Id: '0' }, { Id: '1' }, { Id: '3' }].map((e) => ({ ...e, MessageId: 'm', MD5OfMessageBody: 'x' })),
      Failed: [{ Id: '2', Code: 'InternalError', SenderFault: false }],
    });
    const log = captureLog();
    const counters = new MemoryCounters();
    const send = syncFastPath(config, { sqs: new SQSClient({ region: 'us-east-1' }) }, queues, { log, counters })!;
    await Promise.all([send('a@example.com'), send('b@example.com')]);
    expect(sqs.commandCalls(SendMessageBatchCommand)).toHaveLength(1);
    expect(Object.fromEntries(counters.totals)).toEqual({ 'SyncFastPathFailed{provider=ses}': 1 });
    expect(log.lines.filter((l) => l.level === 'warn')).toHaveLength(1);
    expect(JSON.stringify(log.lines)).not.toContain('example.com');
  });

  it('the queue names the messages it did not send', async () => {
    sqs.on(SendMessageBatchCommand).resolves({
      Successful: [{ Id: '0', MessageId: 'm', MD5OfMessageBody: 'x' }],
      Failed: [{ Id: '1', Code: 'InternalError', SenderFault: false }],
    });
    const messages = [
      { email: 'a@example.com', provider: 'ses' as const },
      { email: 'b@example.com', provider: 'ses' as const },
    ];
    const error = await new SqsSyncQueue(new SQSClient({ region: 'us-east-1' }), () => URL)
      .send(messages)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SyncSendError);
    expect((error as SyncSendError).unsent).toEqual([messages[1]]);
  });
});
