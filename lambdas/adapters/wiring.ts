/**
 * Assembles the pipeline from configuration: the one place that knows which adapter backs which port.
 * The Lambda entry files call it at module scope (clients built once per container); the local runtime
 * and the integration tests call it with their own endpoints, and may override any dependency.
 */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { DEFAULT_INBOX_TTL_DAYS, EDGE, INBOX_TABLE, SUPPRESSION_TABLE, SWEEPER } from '../../lib/definitions.js';
import { PROVIDERS } from '../core/providers/index.js';
import { WebhookEdge, type EdgeDeps } from '../core/pipeline/edge.js';
import type { ConsumerDeps } from '../core/pipeline/consume.js';
import type { SweeperDeps } from '../core/pipeline/sweep.js';
import type { CertificateSource } from '../core/provider.js';
import type { SecretSource } from '../core/pipeline/ports.js';
import { policyFromSettings } from '../core/suppression/index.js';
import { createDocumentClient, createSqsClient } from './aws-clients.js';
import { DynamoControlLedger } from './dynamodb-control-ledger.js';
import { DynamoInbox } from './dynamodb-inbox.js';
import { DynamoNonceStore } from './dynamodb-nonces.js';
import { DynamoSuppressionStore } from './dynamodb-suppressions.js';
import { powertoolsCounters, powertoolsLog } from './observability.js';
import { EnvSecretSource, SecretsManagerSecretSource } from './secrets.js';
import { HttpsCertificateFetcher, PinnedDirectoryCertificates } from './sns-certificates.js';
import { SnsSubscriptionConfirmer } from './sns-confirmer.js';
import { SqsEventQueue } from './sqs-queue.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface RuntimeConfig {
  region: string;
  dynamoEndpoint?: string;
  sqsEndpoint?: string;
  inboxTable: string;
  suppressionTable: string;
  /** A URL, or a resolver (the local runtime learns it from CreateQueue). */
  queueUrl: string | (() => Promise<string>);
  inboxTtlDays: number;
  /** `secrets-manager` in AWS (ARNs in `<PROVIDER>_SECRET_ARN`), `env` locally. */
  secrets: 'env' | 'secrets-manager';
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
    inboxTtlDays: positiveNumber(env.INBOX_TTL_DAYS, DEFAULT_INBOX_TTL_DAYS, 'INBOX_TTL_DAYS'),
    secrets: PROVIDERS.some((p) => p.secretArnVariable && env[p.secretArnVariable]) ? 'secrets-manager' : 'env',
    secretsCacheSeconds: positiveNumber(env.SECRETS_CACHE_SECONDS, 60, 'SECRETS_CACHE_SECONDS'),
    settings: env,
  };
}

export function createClients(config: RuntimeConfig): Clients {
  return { doc: createDocumentClient(config), sqs: createSqsClient(config) };
}

function queueResolver(config: RuntimeConfig): () => Promise<string> | string {
  const { queueUrl } = config;
  if (typeof queueUrl === 'function') return queueUrl;
  if (!queueUrl) throw new Error('QUEUE_URL is not set');
  return () => queueUrl;
}

function certificateSource(config: RuntimeConfig): CertificateSource {
  const dir = config.settings.SNS_CERT_DIR;
  return dir ? new PinnedDirectoryCertificates(dir) : new HttpsCertificateFetcher();
}

function secretSource(config: RuntimeConfig): SecretSource {
  if (config.secrets === 'env') return new EnvSecretSource(config.settings);
  return new SecretsManagerSecretSource(
    new SecretsManagerClient({ region: config.region }),
    config.settings,
    config.secretsCacheSeconds * 1000,
  );
}

export function buildEdge(config: RuntimeConfig, clients: Clients, overrides: Partial<EdgeDeps> = {}): WebhookEdge {
  const ttlSeconds = Math.round(config.inboxTtlDays * 86_400);
  const now = overrides.now ?? Date.now;
  return new WebhookEdge({
    providers: PROVIDERS,
    secrets: secretSource(config),
    inbox: new DynamoInbox(clients.doc, config.inboxTable, ttlSeconds, now),
    queue: new SqsEventQueue(clients.sqs, queueResolver(config)),
    nonces: new DynamoNonceStore(clients.doc, config.inboxTable, now),
    certificates: certificateSource(config),
    confirmer: new SnsSubscriptionConfirmer(),
    ledger: new DynamoControlLedger(clients.doc, config.inboxTable, ttlSeconds),
    now,
    settings: config.settings,
    log: powertoolsLog('ratchet-edge'),
    counters: powertoolsCounters('ratchet-edge', 'Ratchet'),
    maxBodyBytes: EDGE.maxBodyBytes,
    ...overrides,
  });
}

export function buildConsumerDeps(config: RuntimeConfig, clients: Clients, overrides: Partial<ConsumerDeps> = {}): ConsumerDeps {
  const now = overrides.now ?? Date.now;
  return {
    inbox: new DynamoInbox(clients.doc, config.inboxTable, Math.round(config.inboxTtlDays * 86_400), now),
    suppressions: new DynamoSuppressionStore(clients.doc, config.suppressionTable, policyFromSettings(config.settings), { now }),
    now,
    log: powertoolsLog('ratchet-consumer'),
    counters: powertoolsCounters('ratchet-consumer', 'Ratchet'),
    ...overrides,
  };
}

export function buildSweeperDeps(config: RuntimeConfig, clients: Clients, overrides: Partial<SweeperDeps> = {}): SweeperDeps {
  const now = overrides.now ?? Date.now;
  return {
    inbox: new DynamoInbox(clients.doc, config.inboxTable, Math.round(config.inboxTtlDays * 86_400), now),
    queue: new SqsEventQueue(clients.sqs, queueResolver(config)),
    now,
    log: powertoolsLog('ratchet-sweeper'),
    pendingAfterMs: positiveNumber(config.settings.SWEEP_AFTER_SECONDS, SWEEPER.pendingAfterSeconds, 'SWEEP_AFTER_SECONDS') * 1000,
    maxRows: 1000,
    ...overrides,
  };
}

function positiveNumber(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number`);
  return n;
}
