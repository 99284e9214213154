/**
 * `npm run send -- ses <kind> <email> --via queue`: puts the signed envelope on the SES feed queue, as
 * SNS does for an SQS subscription with raw message delivery off (the body is the envelope itself),
 * and makes no HTTP request. The queue is found the way the other commands find the stack:
 * SQS_ENDPOINT (with SES_QUEUE_NAME, default ratchet-ses-notifications), or the running `npm start`'s
 * `.data/local.json`. The demo certificate is pinned only by a local stack, so there is no AWS fallback.
 */

import { resolve } from 'node:path';
import { GetQueueUrlCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { createSqsClient } from '../../lambdas/adapters/aws-clients.js';
import { NAME_DEFAULTS, RUNTIME_VARIABLE as V } from '../../lambdas/adapters/environment.js';
import { readState, statePath } from '../local/state.js';
import type { Env } from './context.js';
import type { Io } from './io.js';
import { isAlive } from './target.js';

export interface FeedTarget {
  region: string;
  sqsEndpoint: string;
  /** A URL, or a queue name to look up on the endpoint. */
  queue: string;
  description: string;
}

/** Where the feed is, or a one-line reason it cannot be found. */
export function findFeed(env: Env): FeedTarget | string {
  const dataDir = resolve(env.RATCHET_DATA_DIR ?? '.data');
  const region = env[V.region] ?? env[V.defaultRegion] ?? 'us-east-1';
  const named = env[V.sesQueueName];
  if (env[V.sqsEndpoint]) {
    const queue = named || NAME_DEFAULTS[V.sesQueueName];
    return {
      region,
      sqsEndpoint: env[V.sqsEndpoint]!,
      queue,
      description: `${queue} at SQS_ENDPOINT ${env[V.sqsEndpoint]}`,
    };
  }
  let state: ReturnType<typeof readState>;
  try {
    state = readState(dataDir);
  } catch (error) {
    return `${statePath(dataDir)} is unreadable (${(error as Error).message}): remove it, or restart \`npm start\``;
  }
  if (!state)
    return `no local stack (${statePath(dataDir)} not found): start it with \`npm start\`, or set SQS_ENDPOINT (and SES_QUEUE_NAME)`;
  if (!isAlive(state.pid))
    return `the local stack is not running (${statePath(dataDir)} names pid ${state.pid}, which has exited): start it with \`npm start\``;
  if (!state.sesQueueUrl && !named)
    return `${statePath(dataDir)} names no SES feed queue: restart \`npm start\`, or set SES_QUEUE_NAME`;
  const queue = named || state.sesQueueUrl;
  return {
    region: state.region,
    sqsEndpoint: state.sqsEndpoint,
    queue,
    description: `the local stack's SES feed (pid ${state.pid})`,
  };
}

/**
 * Sends `body` to the feed; prints the SQS message id, the SNS MessageId and the inbox key the event
 * will be stored under. Exit 0, or 1 when the queue cannot be reached.
 */
export async function sendToFeed(env: Env, body: string, inboxKey: string | undefined, io: Io): Promise<number> {
  const target = findFeed(env);
  if (typeof target === 'string') {
    io.err(`error: ${target}`);
    return 1;
  }
  const client = createSqsClient({ region: target.region, sqsEndpoint: target.sqsEndpoint });
  try {
    const queueUrl = /^https?:\/\//.test(target.queue)
      ? target.queue
      : (await client.send(new GetQueueUrlCommand({ QueueName: target.queue }))).QueueUrl!;
    const sent = await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
    const envelope = JSON.parse(body) as { MessageId: string };
    io.out(
      `SQS ${queueUrl} ← message ${sent.MessageId}: SNS MessageId ${envelope.MessageId}, inbox key ${inboxKey ?? '(none: nothing to store)'}`,
    );
    return 0;
  } catch (error) {
    const reason = error instanceof Error ? error.message || error.name : String(error);
    io.err(`error: could not put the envelope on ${target.description}: ${reason}`);
    return 1;
  } finally {
    client.destroy();
  }
}
