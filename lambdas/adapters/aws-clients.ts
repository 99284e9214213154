/**
 * SDK clients, built once per process (module scope in the Lambda entries, once per runtime locally).
 * An explicit endpoint (dynalite, fauxqs, LocalStack) gets static dummy credentials, so the local stack
 * never goes looking for an AWS profile. Each client signs with one signer, not one per request (sign-once.ts).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { CachedDocumentClient } from './document-client.js';
import { signOnce } from './sign-once.js';

export interface ClientConfig {
  region: string;
  dynamoEndpoint?: string;
  sqsEndpoint?: string;
}

const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

/** The document client, with its per-event commands on a twin client that caches its middleware (document-client.ts). */
export function createDocumentClient(config: ClientConfig): DynamoDBDocumentClient {
  const options = {
    region: config.region,
    ...(config.dynamoEndpoint ? { endpoint: config.dynamoEndpoint, credentials: LOCAL_CREDENTIALS } : {}),
  };
  return new CachedDocumentClient(
    signOnce(new DynamoDBClient(options)),
    signOnce(new DynamoDBClient({ ...options, cacheMiddleware: true })),
    { marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false } },
  );
}

export function createSqsClient(config: ClientConfig): SQSClient {
  return signOnce(
    new SQSClient({
      region: config.region,
      ...(config.sqsEndpoint ? { endpoint: config.sqsEndpoint, credentials: LOCAL_CREDENTIALS } : {}),
    }),
  );
}

export function isConditionalCheckFailure(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}
