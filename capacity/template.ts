/**
 * What the capacity model needs from the synthesized template, read from the template itself: each
 * queue-fed function's event source (batch, batching window, MaximumConcurrency) and its queue's
 * retention, each function's reserved concurrency, the front door's throttles, the tables' keys and
 * indexes. Where the template has no MaximumConcurrency the lib/definitions.ts value stands in, and the
 * facts say so (`concurrencyFrom: 'definitions'`): on AWS such a mapping could scale to the account's
 * limit. Synthesized in process with every sync provider listed, so the sync worker and its index are
 * present; a profile then picks the providers it uses. The worker's per-provider limits are read from its
 * environment, so context syncRates/syncConcurrency given to the synth (`npm run capacity -- --context`) count.
 */
import { rmSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { type ProviderLimits, syncSettings } from '../lambdas/core/sync/settings.js';
import type { SyncProviderName } from '../lambdas/core/sync/target.js';
import { concurrencyPlan } from '../lib/concurrency.js';
import { API, CONSUMER, resourceNames, SES_FEED } from '../lib/definitions.js';
import { RatchetStack } from '../lib/stack.js';
import { SYNC_WORKER } from '../lib/sync-definitions.js';

// biome-ignore lint/suspicious/noExplicitAny: CloudFormation properties are untyped JSON.
type Resource = { Type: string; Properties?: Record<string, any> };
type KeySchema = Array<{ AttributeName: string; KeyType: string }>;

export interface SourceFacts {
  /** The function's description in the template, which names it. */
  functionDescription: string;
  batchSize: number;
  batchingWindowSeconds: number;
  maxConcurrency: number;
  concurrencyFrom: 'template' | 'definitions';
  reservedConcurrency?: number;
  queueRetentionSeconds: number;
}

export interface TableFacts {
  name: string;
  partitionKey: string;
  billing: string;
  indexes: Array<{ name: string; partitionKey: string; sortKey?: string }>;
}

export interface CapacityFacts {
  context: Record<string, string>;
  front: {
    kind: 'api-gateway' | 'function-url';
    /** `POST /webhooks/{provider}` requests per second (its own route setting, or the stage default). */
    webhookRateLimit?: number;
    /** The edge's reserved concurrency (the Function URL's throttle, and a ceiling behind API Gateway too). */
    edgeReservedConcurrency?: number;
  };
  /** Every function's possible concurrency, as the budget check reads it (lib/concurrency.ts). */
  possibleConcurrency: { total: number; parts: Array<{ part: string; concurrency?: number; bound: string }> };
  feed?: SourceFacts;
  consumer: SourceFacts;
  syncWorker?: SourceFacts;
  /**
   * Each provider's limits per worker copy, as the worker reads them from its environment in the template
   * (SYNC_<PROVIDER>_RATE, _CONCURRENCY: context syncRates/syncConcurrency over the copies; unset, the defaults).
   */
  syncLimits?: Record<SyncProviderName, ProviderLimits>;
  tables: { inbox: TableFacts; suppression: TableFacts };
}

/** Every provider, so the template has the sync worker; mailgun needs a domain to synthesize. */
export const SYNTH_CONTEXT: Record<string, string> = {
  syncProviders: 'ses,sendgrid,postmark,mailgun,resend',
  mailgunDomains: 'mg.example.com',
};

export function synthesizeCapacityFacts(context: Record<string, string> = SYNTH_CONTEXT): CapacityFacts {
  const app = new App({ context: { ...context, 'aws:cdk:bundling-stacks': [] } });
  const stack = new RatchetStack(app, 'RatchetCapacity');
  const assembly = app.synth();
  try {
    const template = assembly.getStackArtifact(stack.artifactId).template as { Resources: Record<string, Resource> };
    return readCapacityFacts(template.Resources, context);
  } finally {
    rmSync(assembly.directory, { recursive: true, force: true });
  }
}

export function readCapacityFacts(resources: Record<string, Resource>, context: Record<string, string>): CapacityFacts {
  const entries = Object.entries(resources);
  const ofType = (type: string) => entries.filter(([, r]) => r.Type === type);
  const fn = (descriptionStart: string) =>
    ofType('AWS::Lambda::Function').find(([, r]) =>
      String(r.Properties?.Description ?? '').startsWith(descriptionStart),
    );
  const source = (descriptionStart: string, fallbackConcurrency: number): SourceFacts | undefined => {
    const found = fn(descriptionStart);
    if (!found) return undefined;
    const [logicalId, r] = found;
    const mapping = ofType('AWS::Lambda::EventSourceMapping').find(
      ([, m]) => m.Properties?.FunctionName?.Ref === logicalId,
    )?.[1].Properties;
    if (!mapping) throw new Error(`the template has no event source mapping for "${descriptionStart}"`);
    const queueId = mapping.EventSourceArn?.['Fn::GetAtt']?.[0] as string | undefined;
    const queue = queueId ? resources[queueId]?.Properties : undefined;
    const max = mapping.ScalingConfig?.MaximumConcurrency as number | undefined;
    const reserved = r.Properties?.ReservedConcurrentExecutions as number | undefined;
    return {
      functionDescription: String(r.Properties?.Description),
      batchSize: Number(mapping.BatchSize ?? 10),
      batchingWindowSeconds: Number(mapping.MaximumBatchingWindowInSeconds ?? 0),
      maxConcurrency: max ?? fallbackConcurrency,
      concurrencyFrom: max === undefined ? 'definitions' : 'template',
      ...(reserved !== undefined ? { reservedConcurrency: reserved } : {}),
      // SQS's default retention is 4 days when the queue does not set one.
      queueRetentionSeconds: Number(queue?.MessageRetentionPeriod ?? 4 * 86_400),
    };
  };
  const consumer = source('Ratchet consumer', CONSUMER.maxConcurrency);
  if (!consumer) throw new Error('no consumer function in the template');
  const feed = source('Ratchet SES feed', SES_FEED.maxConcurrency);
  const syncWorker = source('Ratchet sync worker', SYNC_WORKER.maxConcurrency);
  const syncLimits = syncWorker ? workerLimits(fn('Ratchet sync worker')![1]) : undefined;

  const stage = ofType('AWS::ApiGatewayV2::Stage')[0]?.[1].Properties;
  const webhookRoute = stage?.RouteSettings?.['POST /webhooks/{provider}'];
  const edge = fn('Ratchet edge')?.[1].Properties;
  const reserved =
    edge?.ReservedConcurrentExecutions !== undefined
      ? { edgeReservedConcurrency: Number(edge.ReservedConcurrentExecutions) }
      : {};
  const front: CapacityFacts['front'] =
    ofType('AWS::Lambda::Url').length > 0
      ? { kind: 'function-url', ...reserved }
      : {
          kind: 'api-gateway',
          webhookRateLimit: Number(
            webhookRoute?.ThrottlingRateLimit ??
              stage?.DefaultRouteSettings?.ThrottlingRateLimit ??
              API.throttleRateLimit,
          ),
          ...reserved,
        };
  const plan = concurrencyPlan({ Resources: resources });

  const names = resourceNames(context.resourcePrefix);
  const table = (name: string): TableFacts => {
    const p = ofType('AWS::DynamoDB::Table').find(([, r]) => r.Properties?.TableName === name)?.[1].Properties;
    if (!p) throw new Error(`no table ${name} in the template`);
    const hash = (schema: KeySchema) => schema.find((k) => k.KeyType === 'HASH')!.AttributeName;
    const range = (schema: KeySchema) => schema.find((k) => k.KeyType === 'RANGE')?.AttributeName;
    return {
      name,
      partitionKey: hash(p.KeySchema),
      billing: String(p.BillingMode ?? 'PROVISIONED'),
      indexes: ((p.GlobalSecondaryIndexes ?? []) as Array<{ IndexName: string; KeySchema: KeySchema }>).map((i) => ({
        name: String(i.IndexName),
        partitionKey: hash(i.KeySchema),
        ...(range(i.KeySchema) ? { sortKey: range(i.KeySchema) } : {}),
      })),
    };
  };
  return {
    context,
    front,
    possibleConcurrency: {
      total: plan.total,
      parts: plan.parts.map((p) => ({
        part: p.part,
        ...(p.concurrency !== undefined ? { concurrency: p.concurrency } : {}),
        bound: p.bound,
      })),
    },
    ...(feed ? { feed } : {}),
    consumer,
    ...(syncWorker ? { syncWorker } : {}),
    ...(syncLimits ? { syncLimits } : {}),
    tables: { inbox: table(names.inboxTable), suppression: table(names.suppressionTable) },
  };
}

/** The worker's own parse of its plain-text variables (tokens such as queue URLs left out). */
function workerLimits(worker: Resource): Record<SyncProviderName, ProviderLimits> {
  const variables = (worker.Properties?.Environment?.Variables ?? {}) as Record<string, unknown>;
  const text = Object.entries(variables).filter((e): e is [string, string] => typeof e[1] === 'string');
  return syncSettings(Object.fromEntries(text)).limits;
}
