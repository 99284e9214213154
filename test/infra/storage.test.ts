/** The tables and the event queue, and logical ids that survive the split into constructs. */
import { App, Names, Stack } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { Construct } from 'constructs';
import { makeUniqueId } from '../../lib/constructs/stable-ids.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSUMER, INBOX_TABLE, QUEUE, resourceNames, SUPPRESSION_TABLE } from '../../lib/definitions.js';
import { functionLogicalId, logicalId, resources, synthesizeTemplate, type Synthesized } from './helpers.js';

let s: Synthesized;
beforeAll(() => {
  s = synthesizeTemplate();
}, 180_000);
afterAll(() => s?.cleanup());

const resource = (id: string) => resources(s)[id]!;
const consumerMapping = () =>
  Object.values(s.template.findResources('AWS::Lambda::EventSourceMapping'))
    .map((m) => m.Properties)
    .find((p) => JSON.stringify(p.FunctionName) === JSON.stringify({ Ref: functionLogicalId(s.stack.consumer) }))!;

describe('DynamoDB', () => {
  it('inbox: on-demand, pk (S), TTL on expiresAt, no GSI, no PITR by default, destroyed with the stack', () => {
    const table = resource(logicalId(s.stack.inboxTable));
    expect(table.Type).toBe('AWS::DynamoDB::Table');
    expect(table.DeletionPolicy).toBe('Delete');
    const p = table.Properties;
    expect(p.TableName).toBe(INBOX_TABLE.defaultName);
    expect(resourceNames()).toMatchObject({
      inboxTable: INBOX_TABLE.defaultName,
      suppressionTable: SUPPRESSION_TABLE.defaultName,
      queue: QUEUE.defaultName,
      deadLetterQueue: `${QUEUE.defaultName}${QUEUE.deadLetterSuffix}`,
      sesDeadLetterQueue: 'ratchet-ses-dead-letters',
    });
    expect(p.BillingMode).toBe('PAY_PER_REQUEST');
    expect(p.KeySchema).toEqual([{ AttributeName: 'pk', KeyType: 'HASH' }]);
    expect(p.AttributeDefinitions).toEqual([{ AttributeName: 'pk', AttributeType: 'S' }]);
    expect(p.TimeToLiveSpecification).toEqual({ AttributeName: 'expiresAt', Enabled: true });
    expect(p.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: false });
    expect(p.GlobalSecondaryIndexes).toBeUndefined();
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
    expect(resource(logicalId(s.stack.deadLetterQueue)).Properties.QueueName).toBe(`${QUEUE.defaultName}${QUEUE.deadLetterSuffix}`);
  });

  it('visibility timeout is at least 6x the consumer timeout plus the batching window (read from the template)', () => {
    const q = resource(logicalId(s.stack.queue)).Properties;
    const fn = resource(functionLogicalId(s.stack.consumer)).Properties;
    const esm = consumerMapping();
    expect(q.VisibilityTimeout).toBe(QUEUE.visibilityTimeoutSeconds);
    expect(q.VisibilityTimeout).toBeGreaterThanOrEqual(6 * fn.Timeout + esm.MaximumBatchingWindowInSeconds);
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

  it('consumer event source: batches of about 100 within a window of at most 10 s, ReportBatchItemFailures, maximum concurrency', () => {
    expect(CONSUMER.eventSourceBatchSize).toBe(100);
    expect(CONSUMER.maxBatchingWindowSeconds).toBeGreaterThanOrEqual(1); // required by Lambda above 10
    expect(CONSUMER.maxBatchingWindowSeconds).toBeLessThanOrEqual(10);
    s.template.resourceCountIs('AWS::Lambda::EventSourceMapping', 2); // and the SES feed's (ses-queue-feed.test.ts)
    s.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [logicalId(s.stack.queue), 'Arn'] },
      FunctionName: { Ref: functionLogicalId(s.stack.consumer) },
      BatchSize: CONSUMER.eventSourceBatchSize,
      MaximumBatchingWindowInSeconds: CONSUMER.maxBatchingWindowSeconds,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: CONSUMER.maxConcurrency },
    });
  });
});

describe('logical ids', () => {
  it('resources with fixed names (or URLs providers hold) keep the ids they had before the stack became constructs', () => {
    // Taken from the template before the split: a changed id would make CloudFormation create a
    // second table/queue/secret/API with the same name and fail the update.
    const before: Record<string, string> = {
      InboxTableE3C19927: 'ratchet-inbox',
      SuppressionTableBB2F31F9: 'ratchet-suppressions',
      Queue4A7E3555: 'ratchet-events',
      DeadLetterQueue9F481546: 'ratchet-events-dlq',
      SecretSendgrid8C25414E: 'ratchet/sendgrid',
      SecretMailgun4F9448B4: 'ratchet/mailgun',
      SecretPostmark3344D6F4: 'ratchet/postmark',
      SecretStandardAB3D7A5B: 'ratchet/standard',
      SecretGenericD98E839A: 'ratchet/generic',
    };
    for (const [id, name] of Object.entries(before)) {
      const p = resource(id)?.Properties;
      expect(p?.TableName ?? p?.QueueName ?? p?.Name, id).toBe(name);
    }
    for (const [id, type] of [
      ['SesEventsTopic6E3F217C', 'AWS::SNS::Topic'],
      ['ApiF70053CD', 'AWS::ApiGatewayV2::Api'],
      ['DefaultStageEE28A986', 'AWS::ApiGatewayV2::Stage'],
      ['ApiPOSTwebhooksproviderF989DA6A', 'AWS::ApiGatewayV2::Route'],
      ['EdgeFunction28BC278A', 'AWS::Lambda::Function'],
      ['ConsumerFunction1B019A9B', 'AWS::Lambda::Function'],
      ['ConfigurationSet3DD38186', 'AWS::SES::ConfigurationSet'],
    ] as const) {
      expect(resource(id)?.Type, id).toBe(type);
    }
  });

  it('the event source mapping keeps the id SqsEventSource gave it (a second mapping for the same queue and function is refused)', () => {
    // What `new SqsEventSource(queue)` named it when the queue was the stack's child `Queue`.
    const legacyQueue = new Construct(new Stack(new App(), s.stack.node.id), 'Queue');
    const legacyChildId = `SqsEventSource:${Names.nodeUniqueId(legacyQueue.node)}`;
    expect(s.stack.consumer.function.node.tryFindChild(legacyChildId)).toBeDefined();
    const esmId = Object.keys(s.template.findResources('AWS::Lambda::EventSourceMapping', { Properties: { FunctionName: { Ref: functionLogicalId(s.stack.consumer) } } }))[0]!;
    expect(esmId).toBe(makeUniqueId(['Consumer', 'Function', legacyChildId, 'Resource']));
    expect(esmId.startsWith(`ConsumerFunctionSqsEventSource${s.stack.node.id}Queue`)).toBe(true);
  });
});
