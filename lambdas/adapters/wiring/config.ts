/**
 * Runtime configuration and SDK clients, shared by every role's wiring. Kept apart from the role
 * wirings so each Lambda bundle pulls in only what its own role needs (the consumer never loads the
 * provider modules, the SNS client or Secrets Manager).
 */

import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient, createSqsClient } from '../aws-clients.js';
import { DynamoInbox } from '../dynamodb-inbox.js';
import { type Env, NAME_DEFAULTS, readNumber, RUNTIME_VARIABLE as V } from '../environment.js';

export type { Env };

export interface RuntimeConfig {
  region: string;
  dynamoEndpoint?: string;
  sqsEndpoint?: string;
  inboxTable: string;
  suppressionTable: string;
  /** The reputation table (the counter writes it, the evaluator and the CLI read it); unset: the default name. */
  reputationTable?: string;
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
    region: env[V.region] ?? env[V.defaultRegion] ?? 'us-east-1',
    dynamoEndpoint: env[V.dynamoEndpoint] || undefined,
    sqsEndpoint: env[V.sqsEndpoint] || undefined,
    inboxTable: env[V.inboxTable] ?? NAME_DEFAULTS[V.inboxTable],
    suppressionTable: env[V.suppressionTable] ?? NAME_DEFAULTS[V.suppressionTable],
    reputationTable: env[V.reputationTable] || undefined,
    queueUrl: env[V.queueUrl] ?? '',
    inboxTtlDays: readNumber(env, V.inboxTtlDays),
    secretsCacheSeconds: readNumber(env, V.secretsCacheSeconds),
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
  if (!queueUrl) throw new Error(`${V.queueUrl} is not set`);
  return () => queueUrl;
}
