/** The tables and the event queue. */
import { Match } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSUMER, INBOX_TABLE, QUEUE, resourceNames, SUPPRESSION_TABLE } from '../../lib/definitions.js';
import { functionLogicalId, logicalId, resources, type Synthesized, synthesizeTemplate } from './helpers.js';

let s: Synthesized;
beforeAll(() => {
  s = synthesizeTemplate();
}, 180_000);
afterAll(() => s?.cleanup());

const resource = (id: string) => resources(s)[id]!;
const consumerMapping = () =>
  Object.values(s.template.findResources('AWS::Lambda::EventSourceMapping'))
    .map((m) => m.Properties)
    .find(
      (p) => JSON.stringify(p.FunctionName) === JSON.stringify({ Ref: functionLogicalId(s.stack.ratchet.consumer) }),
    )!;

describe('DynamoDB', () => {
  it('inbox: on-demand, pk (S), TTL on expiresAt, no GSI, no PITR by default, a NEW_IMAGE stream, destroyed with the stack', () => {
    const table = resource(logicalId(s.stack.ratchet.inboxTable));
    expect(table.Type).toBe('AWS::DynamoDB::Table');
    expect(table.DeletionPolicy).toBe('Delete');
    const p = table.Properties;
    expect(p.TableName).toBe(INBOX_TABLE.defaultName);
    // The physical names are public (operators, IAM policies and the client find them by name): spelled out.
    expect(resourceNames()).toMatchObject({
      inboxTable: 'ratchet-inbox',
      suppressionTable: 'ratchet-suppressions',
      reputationTable: 'ratchet-reputation',
      reputationFailureQueue: 'ratchet-reputation-failures',
      queue: 'ratchet-events',
      deadLetterQueue: 'ratchet-events-dlq',
      sesDeadLetterQueue: 'ratchet-ses-dead-letters',
      sesQueue: 'ratchet-ses-notifications',
    });
    const { secret, ...named } = resourceNames('acme');
    expect(named).toEqual({
      inboxTable: 'acme-inbox',
      suppressionTable: 'acme-suppressions',
      reputationTable: 'acme-reputation',
      reputationFailureQueue: 'acme-reputation-failures',
      queue: 'acme-events',
      deadLetterQueue: 'acme-events-dlq',
      sesDeadLetterQueue: 'acme-ses-dead-letters',
      sesQueue: 'acme-ses-notifications',
    });
    expect(secret('sendgrid')).toBe('acme/sendgrid');
    expect(p.BillingMode).toBe('PAY_PER_REQUEST');
    expect(p.KeySchema).toEqual([{ AttributeName: 'pk', KeyType: 'HASH' }]);
    expect(p.AttributeDefinitions).toEqual([{ AttributeName: 'pk', AttributeType: 'S' }]);
    expect(p.TimeToLiveSpecification).toEqual({ AttributeName: 'expiresAt', Enabled: true });
    expect(p.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: false });
    expect(p.GlobalSecondaryIndexes).toBeUndefined();
    // Read by the reputation counter only (reputation.test.ts).
    expect(p.StreamSpecification).toEqual({ StreamViewType: 'NEW_IMAGE' });
  });

  it('suppression table: on-demand, email (S), PITR, deletion protection, RETAIN', () => {
    const table = resource(logicalId(s.stack.ratchet.suppressionTable));
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
    const q = resource(logicalId(s.stack.ratchet.queue)).Properties;
    expect(q.QueueName).toBe(QUEUE.defaultName);
    expect(q.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [logicalId(s.stack.ratchet.deadLetterQueue), 'Arn'] },
      maxReceiveCount: QUEUE.maxReceiveCount,
    });
    expect(resource(logicalId(s.stack.ratchet.deadLetterQueue)).Properties.QueueName).toBe(
      `${QUEUE.defaultName}${QUEUE.deadLetterSuffix}`,
    );
  });

  it('visibility timeout is at least 6x the consumer timeout plus the batching window (read from the template)', () => {
    const q = resource(logicalId(s.stack.ratchet.queue)).Properties;
    const fn = resource(functionLogicalId(s.stack.ratchet.consumer)).Properties;
    const esm = consumerMapping();
    expect(q.VisibilityTimeout).toBe(QUEUE.visibilityTimeoutSeconds);
    expect(q.VisibilityTimeout).toBeGreaterThanOrEqual(6 * fn.Timeout + esm.MaximumBatchingWindowInSeconds);
  });

  it('both queues: SQS-managed SSE, retention from definitions, TLS-only queue policy', () => {
    for (const [queue, days] of [
      [s.stack.ratchet.queue, QUEUE.retentionDays],
      [s.stack.ratchet.deadLetterQueue, QUEUE.deadLetterRetentionDays],
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
    s.template.resourceCountIs('AWS::Lambda::EventSourceMapping', 3); // and the SES feed's (ses-queue-feed.test.ts), the inbox stream's (reputation.test.ts)
    s.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [logicalId(s.stack.ratchet.queue), 'Arn'] },
      FunctionName: { Ref: functionLogicalId(s.stack.ratchet.consumer) },
      BatchSize: CONSUMER.eventSourceBatchSize,
      MaximumBatchingWindowInSeconds: CONSUMER.maxBatchingWindowSeconds,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: CONSUMER.maxConcurrency },
    });
  });
});
