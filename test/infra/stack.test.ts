/**
 * The deployed shape, with default context: synthesized once (with real local esbuild bundling) and
 * asserted resource by resource against definitions.ts and the provider registry.
 */
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDERS } from '../../lambdas/core/providers/index.js';
import type { HandlerFunction } from '../../lib/constructs/handler-function.js';
import {
  API,
  CONSUMER,
  DEFAULT_INBOX_TTL_DAYS,
  EDGE,
  INBOX_TABLE,
  QUEUE,
  resourceNames,
  SUPPRESSION_TABLE,
  SWEEPER,
} from '../../lib/definitions.js';
import { pascal, secretNameFor } from '../../lib/stack.js';
import {
  expectedGrants,
  functionLogicalId,
  grants,
  logicalId,
  render,
  resolved,
  roleStatements,
  synthesize,
  type Synthesized,
} from './helpers.js';

let s: Synthesized;
beforeAll(() => {
  s = synthesize();
});
afterAll(() => s?.cleanup());

const fnProps = (handler: HandlerFunction) =>
  (s.template.toJSON().Resources[functionLogicalId(handler)] as { Properties: Record<string, any> }).Properties;
const resource = (id: string) => s.template.toJSON().Resources[id] as Record<string, any>;
const SQS_CONSUME = [
  'sqs:ChangeMessageVisibility',
  'sqs:DeleteMessage',
  'sqs:GetQueueAttributes',
  'sqs:GetQueueUrl',
  'sqs:ReceiveMessage',
];
const LOG_WRITE = ['logs:CreateLogStream', 'logs:PutLogEvents'];

describe('HTTP API', () => {
  it('is one HTTP API with a single throttled $default stage', () => {
    s.template.resourceCountIs('AWS::ApiGatewayV2::Api', 1);
    s.template.hasResourceProperties('AWS::ApiGatewayV2::Api', { ProtocolType: 'HTTP' });
    s.template.resourceCountIs('AWS::ApiGatewayV2::Stage', 1);
    s.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      ApiId: { Ref: logicalId(s.stack.api) },
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: {
        ThrottlingRateLimit: API.throttleRateLimit,
        ThrottlingBurstLimit: API.throttleBurstLimit,
      },
    });
  });

  it('routes POST /webhooks/{provider} to the edge Lambda with payload format 2.0', () => {
    s.template.resourceCountIs('AWS::ApiGatewayV2::Route', 1);
    const routes = s.template.findResources('AWS::ApiGatewayV2::Route');
    const route = Object.values(routes)[0]!.Properties;
    expect(route.RouteKey).toBe('POST /webhooks/{provider}');
    const integrationId = (route.Target['Fn::Join'][1] as unknown[])[1] as { Ref: string };
    const integration = resource(integrationId.Ref);
    expect(integration.Type).toBe('AWS::ApiGatewayV2::Integration');
    expect(integration.Properties).toMatchObject({
      IntegrationType: 'AWS_PROXY',
      PayloadFormatVersion: '2.0',
      IntegrationUri: { 'Fn::GetAtt': [functionLogicalId(s.stack.edge), 'Arn'] },
    });
    s.template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      FunctionName: { 'Fn::GetAtt': [functionLogicalId(s.stack.edge), 'Arn'] },
      Principal: 'apigateway.amazonaws.com',
    });
  });
});

describe('Lambda functions', () => {
  const handlers = () =>
    [
      ['edge', s.stack.edge, EDGE.timeoutSeconds, EDGE.memoryMb],
      ['consumer', s.stack.consumer, CONSUMER.timeoutSeconds, CONSUMER.memoryMb],
      ['sweeper', s.stack.sweeper, SWEEPER.timeoutSeconds, SWEEPER.memoryMb],
    ] as const;

  it('are exactly the three handlers (no log-retention or other helper functions)', () => {
    s.template.resourceCountIs('AWS::Lambda::Function', 3);
  });

  it('run nodejs22.x on arm64 with the timeouts and memory from definitions, logging to their own log group', () => {
    for (const [, handler, timeout, memory] of handlers()) {
      const props = fnProps(handler);
      expect(props.Runtime).toBe('nodejs22.x');
      expect(props.Architectures).toEqual(['arm64']);
      expect(props.Handler).toBe('index.handler');
      expect(props.Timeout).toBe(timeout);
      expect(props.MemorySize).toBe(memory);
      expect(props.LoggingConfig).toEqual({ LogGroup: { Ref: logicalId(handler.logGroup) } });
      expect(props.Role).toEqual({ 'Fn::GetAtt': [logicalId(handler.role), 'Arn'] });
    }
    expect(EDGE.timeoutSeconds).toBeLessThan(15); // SNS gives up on an HTTPS delivery after 15 s
  });

  it('have explicit log groups with a retention', () => {
    s.template.resourceCountIs('AWS::Logs::LogGroup', 3);
    s.template.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
  });

  it('ship a minified ESM bundle with a source map and the AWS SDK inside', () => {
    for (const [name, handler] of handlers()) {
      const code = fnProps(handler).Code as { S3Key: string };
      const dir = join(s.assembly.directory, `asset.${code.S3Key.replace(/\.zip$/, '')}`);
      expect(existsSync(join(dir, 'index.mjs')), `${name} bundle`).toBe(true);
      expect(existsSync(join(dir, 'index.mjs.map')), `${name} source map`).toBe(true);
      const bundle = readFileSync(join(dir, 'index.mjs'), 'utf8');
      expect(bundle.startsWith('import { createRequire as __ratchetCreateRequire }'), `${name} banner`).toBe(true);
      // Nothing left to resolve from the runtime's node_modules: every static or dynamic import is a
      // Node built-in, and the DynamoDB client (every handler uses it) is inside the bundle.
      const importPattern =
        /(?:^|[;}\s])import\s*(?:(?:\{[^}]*\}|\*\s*as\s+[\w$]+|[\w$]+)\s*from\s*)?["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;
      const imports = [...bundle.matchAll(importPattern)].map((m) => (m[1] ?? m[2])!);
      expect(imports, `${name} imports`).toContain('node:module'); // the banner's own import
      expect(imports.filter((spec) => !spec.startsWith('node:')), name).toEqual([]);
      expect(bundle.includes('DynamoDB_20120810'), `${name} bundles @aws-sdk/client-dynamodb`).toBe(true);
      // Minified: no indentation-formatted code.
      expect(bundle.split('\n').length, `${name} line count`).toBeLessThan(200);
    }
  });

  it('each bundle loads as ESM outside the project (no node_modules) and exports handler', () => {
    for (const [name, handler] of handlers()) {
      const code = fnProps(handler).Code as { S3Key: string };
      const file = join(s.assembly.directory, `asset.${code.S3Key.replace(/\.zip$/, '')}`, 'index.mjs');
      const script = `const m = await import(${JSON.stringify(pathToFileURL(file).href)}); process.stdout.write(typeof m.handler);`;
      const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
        cwd: tmpdir(),
        encoding: 'utf8',
        timeout: 20_000,
        // What the stack sets, with placeholder values; no network is touched at import time.
        env: {
          PATH: process.env.PATH,
          AWS_REGION: 'us-east-1',
          AWS_ACCESS_KEY_ID: 'test',
          AWS_SECRET_ACCESS_KEY: 'test',
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
          INBOX_TABLE: INBOX_TABLE.defaultName,
          SUPPRESSION_TABLE: SUPPRESSION_TABLE.defaultName,
          QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/ratchet-events',
          SNS_TOPIC_ARNS: 'arn:aws:sns:us-east-1:123456789012:ratchet',
          INBOX_TTL_DAYS: '90',
          SECRETS_CACHE_SECONDS: '60',
          SWEEP_AFTER_SECONDS: '300',
        },
      });
      expect(out, name).toBe('function');
    }
  });

  it('edge environment: tables, queue, topic allowlist, TTL, one secret ARN per provider that has one', () => {
    const env = fnProps(s.stack.edge).Environment.Variables as Record<string, unknown>;
    const expected: Record<string, unknown> = {
      INBOX_TABLE: { Ref: logicalId(s.stack.inboxTable) },
      QUEUE_URL: { Ref: logicalId(s.stack.queue) },
      SNS_TOPIC_ARNS: { Ref: logicalId(s.stack.topic) },
      INBOX_TTL_DAYS: String(DEFAULT_INBOX_TTL_DAYS),
      SWEEP_AFTER_SECONDS: String(SWEEPER.resendAfterSeconds),
      SECRETS_CACHE_SECONDS: '60',
      POWERTOOLS_SERVICE_NAME: 'ratchet-edge',
      POWERTOOLS_METRICS_NAMESPACE: 'Ratchet',
      NODE_OPTIONS: '--enable-source-maps',
    };
    for (const p of PROVIDERS) {
      if (p.secretArnVariable) expected[p.secretArnVariable] = { Ref: logicalId(s.stack.secrets.get(p.name)!) };
    }
    expect(env).toEqual(expected); // exact: no POSTMARK_ALLOWED_IPS unless given
    expect(Object.keys(env)).toEqual(
      expect.arrayContaining([
        'SENDGRID_SECRET_ARN',
        'MAILGUN_SECRET_ARN',
        'POSTMARK_SECRET_ARN',
        'STANDARD_WEBHOOK_SECRET_ARN',
        'GENERIC_WEBHOOK_SECRET_ARN',
      ]),
    );
  });

  it('consumer and sweeper environments', () => {
    expect(fnProps(s.stack.consumer).Environment.Variables).toEqual({
      INBOX_TABLE: { Ref: logicalId(s.stack.inboxTable) },
      SUPPRESSION_TABLE: { Ref: logicalId(s.stack.suppressionTable) },
      POWERTOOLS_SERVICE_NAME: 'ratchet-consumer',
      POWERTOOLS_METRICS_NAMESPACE: 'Ratchet',
      NODE_OPTIONS: '--enable-source-maps',
    });
    expect(fnProps(s.stack.sweeper).Environment.Variables).toEqual({
      INBOX_TABLE: { Ref: logicalId(s.stack.inboxTable) },
      QUEUE_URL: { Ref: logicalId(s.stack.queue) },
      SWEEP_AFTER_SECONDS: String(SWEEPER.resendAfterSeconds),
      POWERTOOLS_SERVICE_NAME: 'ratchet-sweeper',
      POWERTOOLS_METRICS_NAMESPACE: 'Ratchet',
      NODE_OPTIONS: '--enable-source-maps',
    });
  });
});

describe('least-privilege IAM', () => {
  it('roles carry no managed policies and no inline policies of their own', () => {
    for (const handler of [s.stack.edge, s.stack.consumer, s.stack.sweeper]) {
      const role = resource(logicalId(handler.role)).Properties;
      expect(role.ManagedPolicyArns).toBeUndefined();
      expect(role.Policies).toBeUndefined();
      expect(role.AssumeRolePolicyDocument.Statement).toEqual([
        { Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' } },
      ]);
    }
  });

  it('no statement is on "*", none is a Deny or conditional, none uses a wildcard action', () => {
    for (const handler of [s.stack.edge, s.stack.consumer, s.stack.sweeper]) {
      const statements = roleStatements(s.template, handler);
      expect(statements.length).toBeGreaterThan(0);
      for (const st of statements) {
        expect(st.Effect).toBe('Allow');
        expect(st.Condition).toBeUndefined();
        expect(st.Resource).not.toContain('*');
        for (const r of st.Resource) expect(render(r)).not.toMatch(/(^|:)\*$/);
        for (const a of st.Action) expect(a).not.toContain('*');
      }
    }
  });

  it('edge: Put/Get on the inbox (never Update), SendMessage on the queue, ConfirmSubscription on the topic, GetSecretValue on the provider secrets', () => {
    const { stack } = s;
    expect(grants(roleStatements(s.template, stack.edge))).toEqual(
      expectedGrants(stack, [
        [['dynamodb:PutItem', 'dynamodb:GetItem'], [stack.inboxTable.tableArn]],
        [['sqs:SendMessage'], [stack.queue.queueArn]],
        [['sns:ConfirmSubscription'], [stack.topic.topicArn]],
        [['secretsmanager:GetSecretValue'], [...stack.secrets.values()].map((x) => x.secretArn)],
        [LOG_WRITE, [stack.edge.logGroup.logGroupArn]],
      ]),
    );
    expect(stack.secrets.size).toBe(PROVIDERS.filter((p) => p.secretArnVariable).length);
    // Nothing on the suppression table.
    const text = JSON.stringify(roleStatements(s.template, stack.edge));
    expect(text).not.toContain(logicalId(stack.suppressionTable));
  });

  it('consumer: Get/Put on the suppression table, UpdateItem on the inbox, SQS consume on the queue', () => {
    const { stack } = s;
    expect(grants(roleStatements(s.template, stack.consumer))).toEqual(
      expectedGrants(stack, [
        [['dynamodb:GetItem', 'dynamodb:PutItem'], [stack.suppressionTable.tableArn]],
        [['dynamodb:UpdateItem'], [stack.inboxTable.tableArn]],
        [SQS_CONSUME, [stack.queue.queueArn]],
        [LOG_WRITE, [stack.consumer.logGroup.logGroupArn]],
      ]),
    );
  });

  it('sweeper: Query on the pending index only, Get/Update on the inbox, SendMessage on the queue', () => {
    const { stack } = s;
    const g = grants(roleStatements(s.template, stack.sweeper));
    expect(g).toEqual(
      expectedGrants(stack, [
        [['dynamodb:Query'], [`${stack.inboxTable.tableArn}/index/${INBOX_TABLE.pendingIndex.name}`]],
        [['dynamodb:GetItem', 'dynamodb:UpdateItem'], [stack.inboxTable.tableArn]],
        [['sqs:SendMessage'], [stack.queue.queueArn]],
        [LOG_WRITE, [stack.sweeper.logGroup.logGroupArn]],
      ]),
    );
    expect(g['dynamodb:Query']!.map((r) => render(JSON.parse(r)))).toEqual([
      `{GetAtt:${logicalId(stack.inboxTable)}.Arn}/index/pending`,
    ]);
  });
});

describe('DynamoDB', () => {
  it('inbox: on-demand, pk (S), TTL on expiresAt, PITR, sparse KEYS_ONLY pending GSI, destroyed with the stack', () => {
    const table = resource(logicalId(s.stack.inboxTable));
    expect(table.Type).toBe('AWS::DynamoDB::Table');
    expect(table.DeletionPolicy).toBe('Delete');
    const p = table.Properties;
    expect(p.TableName).toBe(INBOX_TABLE.defaultName);
    // The defaults the local runtime, the CLI and isSuppressed fall back to are the default prefix's names.
    expect(resourceNames()).toMatchObject({
      inboxTable: INBOX_TABLE.defaultName,
      suppressionTable: SUPPRESSION_TABLE.defaultName,
      queue: QUEUE.defaultName,
      deadLetterQueue: `${QUEUE.defaultName}${QUEUE.deadLetterSuffix}`,
    });
    expect(p.BillingMode).toBe('PAY_PER_REQUEST');
    expect(p.KeySchema).toEqual([{ AttributeName: 'pk', KeyType: 'HASH' }]);
    expect(p.AttributeDefinitions).toEqual(
      expect.arrayContaining([
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'pendingShard', AttributeType: 'S' },
        { AttributeName: 'resendAt', AttributeType: 'N' },
      ]),
    );
    expect(p.AttributeDefinitions).toHaveLength(3);
    expect(p.TimeToLiveSpecification).toEqual({ AttributeName: 'expiresAt', Enabled: true });
    expect(p.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
    expect(p.GlobalSecondaryIndexes).toEqual([
      {
        IndexName: 'pending',
        KeySchema: [
          { AttributeName: 'pendingShard', KeyType: 'HASH' },
          { AttributeName: 'resendAt', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'KEYS_ONLY' },
      },
    ]);
  });

  it('suppression table: on-demand, email (S), PITR, deletion protection, RETAIN', () => {
    const table = resource(logicalId(s.stack.suppressionTable));
    expect(table.DeletionPolicy).toBe('Retain');
    expect(table.UpdateReplacePolicy).toBe('Retain');
    const p = table.Properties;
    expect(p.TableName).toBe(SUPPRESSION_TABLE.defaultName);
    expect(p.BillingMode).toBe('PAY_PER_REQUEST');
    expect(p.KeySchema).toEqual([{ AttributeName: 'email', KeyType: 'HASH' }]);
    expect(p.AttributeDefinitions).toEqual([{ AttributeName: 'email', AttributeType: 'S' }]);
    expect(p.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
    expect(p.DeletionProtectionEnabled).toBe(true);
    expect(p.TimeToLiveSpecification).toBeUndefined();
  });
});

describe('SQS', () => {
  it('queue redrives to the DLQ after maxReceiveCount (>= 5) receives', () => {
    expect(QUEUE.maxReceiveCount).toBeGreaterThanOrEqual(5);
    const q = resource(logicalId(s.stack.queue)).Properties;
    expect(q.QueueName).toBe(QUEUE.defaultName);
    expect(q.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [logicalId(s.stack.deadLetterQueue), 'Arn'] },
      maxReceiveCount: QUEUE.maxReceiveCount,
    });
    expect(resource(logicalId(s.stack.deadLetterQueue)).Properties.QueueName).toBe(
      `${QUEUE.defaultName}${QUEUE.deadLetterSuffix}`,
    );
  });

  it('visibility timeout is at least 6x the consumer timeout (both read from the template)', () => {
    const q = resource(logicalId(s.stack.queue)).Properties;
    expect(q.VisibilityTimeout).toBe(QUEUE.visibilityTimeoutSeconds);
    expect(q.VisibilityTimeout).toBeGreaterThanOrEqual(6 * fnProps(s.stack.consumer).Timeout);
  });

  it('both queues: SQS-managed SSE, retention from definitions, TLS-only queue policy', () => {
    for (const [queue, days] of [
      [s.stack.queue, QUEUE.retentionDays],
      [s.stack.deadLetterQueue, QUEUE.deadLetterRetentionDays],
    ] as const) {
      const p = resource(logicalId(queue)).Properties;
      expect(p.SqsManagedSseEnabled).toBe(true);
      expect(p.KmsMasterKeyId).toBeUndefined();
      expect(p.MessageRetentionPeriod).toBe(days * 24 * 3600);
      s.template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: logicalId(queue) }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Action: 'sqs:*',
              Principal: { AWS: '*' },
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
              Resource: { 'Fn::GetAtt': [logicalId(queue), 'Arn'] },
            }),
          ]),
        },
      });
    }
  });

  it('consumer event source: batch settings, ReportBatchItemFailures, maximum concurrency', () => {
    s.template.resourceCountIs('AWS::Lambda::EventSourceMapping', 1);
    s.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [logicalId(s.stack.queue), 'Arn'] },
      FunctionName: { Ref: functionLogicalId(s.stack.consumer) },
      BatchSize: CONSUMER.batchSize,
      MaximumBatchingWindowInSeconds: CONSUMER.maxBatchingWindowSeconds,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: CONSUMER.maxConcurrency },
    });
  });
});

describe('SES -> SNS -> HTTPS', () => {
  it('subscribes the topic over HTTPS to <api>/webhooks/ses, paced below the stage limit, with a longer retry policy', () => {
    s.template.resourceCountIs('AWS::SNS::Subscription', 1);
    const sub = resource(logicalId(s.stack.sesSubscription));
    const p = sub.Properties;
    expect(p.Protocol).toBe('https');
    expect(p.TopicArn).toEqual({ Ref: logicalId(s.stack.topic) });
    expect(render(p.Endpoint)).toBe(
      `https://{Ref:${logicalId(s.stack.api)}}.execute-api.{AWS::Region}.{AWS::URLSuffix}/webhooks/ses`,
    );
    expect(p.DeliveryPolicy.throttlePolicy).toEqual({ maxReceivesPerSecond: API.snsMaxReceivesPerSecond });
    expect(API.snsMaxReceivesPerSecond).toBeLessThanOrEqual(API.throttleRateLimit);
    expect(p.DeliveryPolicy.healthyRetryPolicy).toMatchObject({ numRetries: 50, maxDelayTarget: 60 });
  });

  it('is created only after the stage and the route exist (SNS confirms immediately and never retries a 404)', () => {
    const sub = resource(logicalId(s.stack.sesSubscription));
    const routeId = Object.keys(s.template.findResources('AWS::ApiGatewayV2::Route'))[0]!;
    const permissionIds = Object.keys(
      s.template.findResources('AWS::Lambda::Permission', { Properties: { Principal: 'apigateway.amazonaws.com' } }),
    );
    expect(sub.DependsOn).toEqual(
      expect.arrayContaining([logicalId(s.stack.stage), routeId, ...permissionIds]),
    );
  });

  it('SES configuration set sends bounce, complaint, delivery and subscription events to the topic', () => {
    s.template.resourceCountIs('AWS::SES::ConfigurationSet', 1);
    s.template.hasResourceProperties('AWS::SES::ConfigurationSetEventDestination', {
      ConfigurationSetName: { Ref: logicalId(s.stack.configurationSet!) },
      EventDestination: {
        Enabled: true,
        MatchingEventTypes: ['bounce', 'complaint', 'delivery', 'subscription'],
        SnsDestination: { TopicARN: { Ref: logicalId(s.stack.topic) } },
      },
    });
  });

  it('topic policy lets only SES in this account (and this configuration set) publish', () => {
    s.template.resourceCountIs('AWS::SNS::TopicPolicy', 1);
    s.template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [{ Ref: logicalId(s.stack.topic) }],
      PolicyDocument: {
        Statement: [
          Match.objectLike({
            Effect: 'Allow',
            Action: 'sns:Publish',
            Principal: { Service: 'ses.amazonaws.com' },
            Resource: { Ref: logicalId(s.stack.topic) },
            Condition: {
              StringEquals: {
                'AWS:SourceAccount': { Ref: 'AWS::AccountId' },
                'AWS:SourceArn': Match.anyValue(),
              },
            },
          }),
        ],
      },
    });
    const policy = Object.values(s.template.findResources('AWS::SNS::TopicPolicy'))[0]!;
    const statements = policy.Properties.PolicyDocument.Statement as Array<Record<string, any>>;
    expect(statements).toHaveLength(1);
    expect(render(statements[0]!.Condition.StringEquals['AWS:SourceArn'])).toBe(
      `arn:{AWS::Partition}:ses:{AWS::Region}:{AWS::AccountId}:configuration-set/{Ref:${logicalId(s.stack.configurationSet!)}}`,
    );
  });

  it('synthesizes without warnings or errors', () => {
    expect(Annotations.fromStack(s.stack).findWarning('*', Match.anyValue())).toEqual([]);
    expect(Annotations.fromStack(s.stack).findError('*', Match.anyValue())).toEqual([]);
  });
});

describe('secrets', () => {
  it('one retained placeholder secret per provider with a secretArnVariable, none for SES', () => {
    const withSecret = PROVIDERS.filter((p) => p.secretArnVariable);
    expect(withSecret.map((p) => p.name)).not.toContain('ses');
    s.template.resourceCountIs('AWS::SecretsManager::Secret', withSecret.length);
    for (const p of withSecret) {
      const secret = resource(logicalId(s.stack.secrets.get(p.name)!));
      expect(secret.DeletionPolicy).toBe('Retain');
      expect(secret.Properties).toMatchObject({ Name: secretNameFor(p.name), SecretString: '[]' });
    }
  });
});

describe('sweeper schedule', () => {
  it('an EventBridge rule runs the sweeper every SWEEPER.scheduleMinutes', () => {
    s.template.resourceCountIs('AWS::Events::Rule', 1);
    s.template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: `rate(${SWEEPER.scheduleMinutes} minutes)`,
      State: 'ENABLED',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [functionLogicalId(s.stack.sweeper), 'Arn'] } })],
    });
    s.template.hasResourceProperties('AWS::Lambda::Permission', {
      FunctionName: { 'Fn::GetAtt': [functionLogicalId(s.stack.sweeper), 'Arn'] },
      Principal: 'events.amazonaws.com',
    });
  });
});

describe('outputs', () => {
  it('a webhook URL per registry entry, tables, queue, topic, configuration set and secret ARNs', () => {
    const outputs = s.template.toJSON().Outputs as Record<string, { Value: unknown }>;
    const api = `https://{Ref:${logicalId(s.stack.api)}}.execute-api.{AWS::Region}.{AWS::URLSuffix}/`;
    for (const p of PROVIDERS) {
      expect(render(outputs[`WebhookUrl${pascal(p.name)}`]?.Value), p.name).toBe(`${api}webhooks/${p.name}`);
    }
    for (const [name, secret] of s.stack.secrets) {
      expect(outputs[`SecretArn${pascal(name)}`]?.Value).toEqual(resolved(s.stack, secret.secretArn));
    }
    expect(render(outputs.ApiUrl?.Value)).toBe(api);
    expect(outputs.InboxTableName?.Value).toEqual({ Ref: logicalId(s.stack.inboxTable) });
    expect(outputs.SuppressionTableName?.Value).toEqual({ Ref: logicalId(s.stack.suppressionTable) });
    expect(outputs.QueueUrl?.Value).toEqual({ Ref: logicalId(s.stack.queue) });
    expect(outputs.SesTopicArn?.Value).toEqual({ Ref: logicalId(s.stack.topic) });
    expect(outputs.ConfigurationSetName?.Value).toEqual({ Ref: logicalId(s.stack.configurationSet!) });
    expect(outputs.AlarmTopicArn?.Value).toEqual({ Ref: logicalId(s.stack.alarms.topic) });
  });
});

describe('alarms', () => {
  const alarms = () =>
    Object.fromEntries(
      s.stack.alarms.alarms.map((a) => [a.node.id, resource(logicalId(a)).Properties as Record<string, any>]),
    );

  it('every alarm notifies the alarm topic, fires at >= threshold and treats no data as fine', () => {
    const all = alarms();
    expect(Object.keys(all).sort()).toEqual([
      'ConsumerFunctionErrors',
      'DeadLetterQueueNotEmpty',
      'EdgeFunctionErrors',
      'EdgeServerErrors',
      'QueueBacklogOld',
      'SweeperFunctionErrors',
    ]);
    expect(Object.keys(s.template.findResources('AWS::CloudWatch::Alarm'))).toHaveLength(6);
    for (const [id, p] of Object.entries(all)) {
      expect(p.AlarmActions, id).toEqual([{ Ref: logicalId(s.stack.alarms.topic) }]);
      expect(p.ComparisonOperator, id).toBe('GreaterThanOrEqualToThreshold');
      expect(p.TreatMissingData, id).toBe('notBreaching');
      expect(p.Period, id).toBe(300);
    }
    // No address is subscribed unless context alarmEmail asks for one.
    expect(s.template.findResources('AWS::SNS::Subscription', { Properties: { Protocol: 'email' } })).toEqual({});
  });

  it('a message in the DLQ alarms at once', () => {
    expect(alarms().DeadLetterQueueNotEmpty).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(s.stack.deadLetterQueue), 'QueueName'] } }],
      Statistic: 'Maximum',
      Threshold: 1,
      EvaluationPeriods: 1,
    });
  });

  it('a queued event older than 30 minutes alarms (the consumer is stuck or behind)', () => {
    expect(alarms().QueueBacklogOld).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateAgeOfOldestMessage',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(s.stack.queue), 'QueueName'] } }],
      Statistic: 'Maximum',
      Threshold: 1800,
    });
  });

  it('5xx from the API in three 5-minute periods in a row alarms; a blip does not', () => {
    expect(alarms().EdgeServerErrors).toMatchObject({
      Namespace: 'AWS/ApiGateway',
      MetricName: '5xx',
      Dimensions: [{ Name: 'ApiId', Value: { Ref: logicalId(s.stack.api) } }],
      Statistic: 'Sum',
      Threshold: 1,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
    });
  });

  it('a crash or timeout of any of the three Lambdas alarms', () => {
    const all = alarms();
    for (const [id, handler] of [
      ['EdgeFunctionErrors', s.stack.edge],
      ['ConsumerFunctionErrors', s.stack.consumer],
      ['SweeperFunctionErrors', s.stack.sweeper],
    ] as const) {
      expect(all[id], id).toMatchObject({
        Namespace: 'AWS/Lambda',
        MetricName: 'Errors',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionLogicalId(handler) } }],
        Statistic: 'Sum',
        Threshold: 1,
      });
    }
  });
});
