/**
 * Runtime configuration and SDK clients, shared by every role's wiring. Kept apart from the role
 * wirings so each Lambda bundle pulls in only what its own role needs (the consumer never loads the
 * provider modules, the SNS client or Secrets Manager).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { DEFAULT_INBOX_TTL_DAYS, INBOX_TABLE, SUPPRESSION_TABLE } from '../../../lib/definitions.js';
import { createDocumentClient, createSqsClient } from '../aws-clients.js';
import { DynamoInbox } from '../dynamodb-inbox.js';

export type Env = Readonly<Record<string, string | undefined>>;

export interface RuntimeConfig {
  region: string;
  dynamoEndpoint?: string;
  sqsEndpoint?: string;
  inboxTable: string;
  suppressionTable: string;
  /** A URL, or a resolver (the local runtime learns it from CreateQueue). */
  queueUrl: string | (() => Promise<string>);
  inboxTtlDays: number;
  /**
   * `secrets-manager` in AWS (ARNs in `<PROVIDER>_SECRET_ARN`), `env` locally. Unset: the edge
   * decides from whether any provider secret ARN is present.
   */
  secrets?: 'env' | 'secrets-manager';
  secretsCacheSeconds: number;
  /** Every other setting the core reads (windows, allowlists, ratchet policy), environment-style. */
  settings: Env;
}

export interface Clients {
  doc: DynamoDBDocumentClient;
  sqs: SQSClient;
}

export function configFromEnv(env: Env): RuntimeConfig {
  return {
    region: env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1',
    dynamoEndpoint: env.DYNAMODB_ENDPOINT || undefined,
    sqsEndpoint: env.SQS_ENDPOINT || undefined,
    inboxTable: env.INBOX_TABLE ?? INBOX_TABLE.defaultName,
    suppressionTable: env.SUPPRESSION_TABLE ?? SUPPRESSION_TABLE.defaultName,
    queueUrl: env.QUEUE_URL ?? '',
    inboxTtlDays: nonNegativeNumber(env.INBOX_TTL_DAYS, DEFAULT_INBOX_TTL_DAYS, 'INBOX_TTL_DAYS'),
    secretsCacheSeconds: nonNegativeNumber(env.SECRETS_CACHE_SECONDS, 60, 'SECRETS_CACHE_SECONDS'),
    settings: env,
  };
}

export function createClients(config: RuntimeConfig): Clients {
  return { doc: createDocumentClient(config), sqs: createSqsClient(config) };
}

export function inboxTtlSeconds(config: RuntimeConfig): number {
  return Math.round(config.inboxTtlDays * 86_400);
}

/** The inbox the edge writes (and the CLI reads). */
export function buildInbox(config: RuntimeConfig, clients: Pick<Clients, 'doc'>): DynamoInbox {
  return new DynamoInbox(clients.doc, config.inboxTable, { ttlSeconds: inboxTtlSeconds(config) });
}

export function queueResolver(config: RuntimeConfig): () => Promise<string> | string {
  const { queueUrl } = config;
  if (typeof queueUrl === 'function') return queueUrl;
  if (!queueUrl) throw new Error('QUEUE_URL is not set');
  return () => queueUrl;
}

export function nonNegativeNumber(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number`);
  return n;
}
