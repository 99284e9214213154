/**
 * What the cost model needs from the synthesized template, read from the template itself (never from
 * lib/definitions.ts constants): each function's memory and architecture and logging config, the
 * consumer's event source batching, the front door resources, the inbox's TTL, indexes and PITR.
 * Synthesized in process with aws-cdk-lib, bundling skipped (it does not change any of these).
 */
import { rmSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { DEFAULT_INBOX_TTL_DAYS, resourceNames } from '../lib/definitions.js';
import { RatchetStack } from '../lib/stack.js';

export interface FunctionFacts {
  logicalId: string;
  memoryMb: number;
  architecture: 'arm64' | 'x86_64';
  /** Lambda drops its own START/END/REPORT lines only with JSON format and a system log level above INFO. */
  platformLogLines: boolean;
  logLevel: string;
  logRetentionDays?: number;
}

export interface TemplateFacts {
  context: Record<string, string>;
  edge: FunctionFacts;
  consumer: FunctionFacts;
  consumerBatchSize: number;
  consumerBatchingWindowSeconds: number;
  /** How SES events arrive: through the feed queue (a feed function, batches) or over HTTPS to the edge. */
  sesFeed: 'sqs' | 'https';
  /** `sesFeed=sqs`: the feed function and its event source batch size. */
  feed?: FunctionFacts;
  feedBatchSize: number;
  httpApi: boolean;
  functionUrl: boolean;
  inboxTtlDays: number;
  inboxIndexes: string[];
  inboxPitr: boolean;
  suppressionPitr: boolean;
  resourceCounts: Record<string, number>;
}

type Resource = { Type: string; Properties?: Record<string, any> };

export function synthesizeFacts(context: Record<string, string> = {}): TemplateFacts {
  const app = new App({ context: { ...context, 'aws:cdk:bundling-stacks': [] } });
  const stack = new RatchetStack(app, 'RatchetCost');
  const assembly = app.synth();
  try {
    const template = assembly.getStackArtifact(stack.artifactId).template as { Resources: Record<string, Resource> };
    return readFacts(template.Resources, context);
  } finally {
    rmSync(assembly.directory, { recursive: true, force: true });
  }
}

export function readFacts(resources: Record<string, Resource>, context: Record<string, string>): TemplateFacts {
  const entries = Object.entries(resources);
  const ofType = (type: string) => entries.filter(([, r]) => r.Type === type);
  const counts: Record<string, number> = {};
  for (const [, r] of entries) counts[r.Type] = (counts[r.Type] ?? 0) + 1;

  const logGroups = new Map(
    ofType('AWS::Logs::LogGroup').map(([id, r]) => [id, r.Properties?.RetentionInDays as number | undefined]),
  );
  const find = (descriptionStart: string) =>
    ofType('AWS::Lambda::Function').find(([, r]) =>
      String(r.Properties?.Description ?? '').startsWith(descriptionStart),
    );
  const fn = (descriptionStart: string): FunctionFacts & { env: Record<string, unknown> } => {
    const found = find(descriptionStart);
    if (!found) throw new Error(`no function whose description starts "${descriptionStart}" in the template`);
    const [logicalId, r] = found;
    const p = r.Properties ?? {};
    const logging = p.LoggingConfig ?? {};
    const env = (p.Environment?.Variables ?? {}) as Record<string, unknown>;
    const groupRef = logging.LogGroup?.Ref as string | undefined;
    return {
      logicalId,
      memoryMb: Number(p.MemorySize ?? 128),
      architecture: (p.Architectures?.[0] ?? 'x86_64') as 'arm64' | 'x86_64',
      platformLogLines: !(logging.LogFormat === 'JSON' && ['WARN', 'ERROR'].includes(logging.SystemLogLevel)),
      logLevel: String(env.LOG_LEVEL ?? env.POWERTOOLS_LOG_LEVEL ?? logging.ApplicationLogLevel ?? 'INFO'),
      logRetentionDays: groupRef ? logGroups.get(groupRef) : undefined,
      env,
    };
  };
  const edge = fn('Ratchet edge');
  const consumer = fn('Ratchet consumer');
  const mappingOf = (logicalId: string) =>
    ofType('AWS::Lambda::EventSourceMapping').find(([, r]) => r.Properties?.FunctionName?.Ref === logicalId);
  const mapping = mappingOf(consumer.logicalId);
  const feed = find('Ratchet SES feed') ? fn('Ratchet SES feed') : undefined;
  const feedMapping = feed ? mappingOf(feed.logicalId) : undefined;
  const names = resourceNames(context.resourcePrefix);
  const table = (name: string) =>
    ofType('AWS::DynamoDB::Table').find(([, r]) => r.Properties?.TableName === name)?.[1].Properties ?? {};
  const inbox = table(names.inboxTable);
  const suppression = table(names.suppressionTable);
  const { env: _e, ...edgeFacts } = edge;
  const { env: _c, ...consumerFacts } = consumer;
  const feedFacts = feed ? (({ env: _f, ...rest }) => rest)(feed) : undefined;
  return {
    context,
    edge: edgeFacts,
    consumer: consumerFacts,
    consumerBatchSize: Number(mapping?.[1].Properties?.BatchSize ?? 10),
    consumerBatchingWindowSeconds: Number(mapping?.[1].Properties?.MaximumBatchingWindowInSeconds ?? 0),
    sesFeed: feedFacts ? 'sqs' : 'https',
    ...(feedFacts ? { feed: feedFacts } : {}),
    feedBatchSize: Number(feedMapping?.[1].Properties?.BatchSize ?? 10),
    httpApi: (counts['AWS::ApiGatewayV2::Api'] ?? 0) > 0,
    functionUrl: (counts['AWS::Lambda::Url'] ?? 0) > 0,
    inboxTtlDays: Number(edge.env.INBOX_TTL_DAYS ?? DEFAULT_INBOX_TTL_DAYS),
    inboxIndexes: ((inbox.GlobalSecondaryIndexes ?? []) as Array<{ IndexName: string }>).map((i) => i.IndexName),
    inboxPitr: inbox.PointInTimeRecoverySpecification?.PointInTimeRecoveryEnabled === true,
    suppressionPitr: suppression.PointInTimeRecoverySpecification?.PointInTimeRecoveryEnabled === true,
    resourceCounts: counts,
  };
}
