/**
 * Which tables the operator CLI talks to, with no setup:
 * 1. DYNAMODB_ENDPOINT set → that endpoint (LocalStack, a dynalite you run yourself);
 * 2. otherwise a running `npm start` (found through `.data/local.json`);
 * 3. otherwise AWS, with the default credential chain and the deployed table names
 *    (SUPPRESSION_TABLE / INBOX_TABLE / QUEUE_URL from the stack outputs).
 * RATCHET_TARGET=aws skips step 2.
 */
import { resolve } from 'node:path';
import { INBOX_TABLE, SUPPRESSION_TABLE } from '../definitions.js';
import { readState } from '../local/state.js';

export interface Target {
  description: string;
  region: string;
  dynamoEndpoint?: string;
  sqsEndpoint?: string;
  inboxTable: string;
  suppressionTable: string;
  queueUrl?: string;
  deadLetterUrl?: string;
}

export function resolveTarget(env: Record<string, string | undefined>): Target {
  const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1';
  const named = {
    inboxTable: env.INBOX_TABLE ?? INBOX_TABLE.defaultName,
    suppressionTable: env.SUPPRESSION_TABLE ?? SUPPRESSION_TABLE.defaultName,
    queueUrl: env.QUEUE_URL,
    deadLetterUrl: env.DLQ_URL,
  };
  if (env.DYNAMODB_ENDPOINT) {
    return { description: `endpoint ${env.DYNAMODB_ENDPOINT}`, region, dynamoEndpoint: env.DYNAMODB_ENDPOINT, sqsEndpoint: env.SQS_ENDPOINT, ...named };
  }
  const state = env.RATCHET_TARGET === 'aws' ? undefined : readState(resolve(env.RATCHET_DATA_DIR ?? '.data'));
  if (state) {
    return {
      description: `local stack at ${state.url}`,
      region: state.region,
      dynamoEndpoint: state.dynamoEndpoint,
      sqsEndpoint: state.sqsEndpoint,
      inboxTable: state.inboxTable,
      suppressionTable: state.suppressionTable,
      queueUrl: state.queueUrl,
      deadLetterUrl: state.deadLetterUrl,
    };
  }
  return { description: `AWS ${region}`, region, ...named };
}
