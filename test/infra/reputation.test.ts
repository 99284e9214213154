/**
 * Reputation on AWS: the table (keys, TTL), the inbox table's stream and the counter's event source
 * mapping (batch, window, bisect, retries, maximum age, on-failure queue, reserved concurrency), the
 * evaluator's 5-minute schedule and reserved concurrency of 1, the `<prefix>-reputation` topic, the
 * alarms on SendersInWarn / SendersInBreach / discarded batches, the dashboard row, least-privilege IAM
 * for the counter, the evaluator and the edge code (none), and thresholds from context.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPUTATION } from '../../lib/definitions.js';
import {
  expectedGrants,
  functionLogicalId,
  grants,
  resources,
  roleStatements,
  type Synthesized,
  synthesizeTemplate,
} from './helpers.js';

describe('reputation resources', () => {
  let s: Synthesized;
  beforeAll(() => {
    s = synthesizeTemplate({ resourcePrefix: 'acme', reputationBreachBouncePercent: 5 });
  });
  afterAll(() => s.cleanup());

  it('the table: pk/sk strings, TTL on expiresAt, on demand, named by the prefix', () => {
    s.template.hasResourceProperties('AWS::DynamoDB::Table', {
      TableName: 'acme-reputation',
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
    });
  });

  it('the evaluator runs every 5 minutes, with reserved concurrency 1, and reads the thresholds from context', () => {
    const evaluator = s.stack.ratchet.reputation.evaluator;
    s.template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(5 minutes)',
      State: 'ENABLED',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [functionLogicalId(evaluator), 'Arn'] } })],
    });
    s.template.hasResourceProperties('AWS::Lambda::Function', {
      Handler: 'index.handler',
      ReservedConcurrentExecutions: 1,
      Environment: {
        Variables: Match.objectLike({
          REPUTATION_TABLE: { Ref: Match.anyValue() },
          REPUTATION_TOPIC_ARN: { Ref: Match.anyValue() },
          REPUTATION_BREACH_BOUNCE_PERCENT: '5',
          POWERTOOLS_SERVICE_NAME: 'ratchet-reputation',
        }),
      },
    });
    expect(resources(s)[functionLogicalId(evaluator)]!.Properties.ReservedConcurrentExecutions).toBe(1);
  });

  it('the topic is <prefix>-reputation, TLS only', () => {
    s.template.hasResourceProperties('AWS::SNS::Topic', { TopicName: 'acme-reputation' });
    s.template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('an alarm on SendersInWarn and one on SendersInBreach, at >= 1, notifying the alarm topic', () => {
    for (const name of ['SendersInWarn', 'SendersInBreach']) {
      s.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: name,
        Namespace: 'Ratchet',
        Dimensions: [{ Name: 'service', Value: 'ratchet-reputation' }],
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        Threshold: 1,
        Period: 300,
        AlarmActions: [{ Ref: s.stack.getLogicalId(s.stack.ratchet.alarmTopic.node.defaultChild as never) }],
      });
    }
  });

  it('a dashboard row with both gauges', () => {
    const body = JSON.stringify(
      Object.values(resources(s)).find((r) => r.Type === 'AWS::CloudWatch::Dashboard')!.Properties.DashboardBody,
    );
    expect(body).toContain('Reputation: senders in warn and in breach');
    expect(body).toContain('SendersInWarn');
    expect(body).toContain('SendersInBreach');
  });

  it('IAM: the evaluator may Query and UpdateItem its table and Publish to its topic, nothing else', () => {
    const { reputation } = s.stack.ratchet;
    expect(grants(roleStatements(s.template, reputation.evaluator))).toEqual(
      expectedGrants(s.stack, [
        [['dynamodb:Query', 'dynamodb:UpdateItem'], [reputation.table.tableArn]],
        [['sns:Publish'], [reputation.topic.topicArn]],
        [['logs:CreateLogStream', 'logs:PutLogEvents'], [reputation.evaluator.logGroup.logGroupArn]],
      ]),
    );
  });

  it('IAM: the edge code (webhook route and SES feed) has no access to the table and is not told its name', () => {
    const { ratchet } = s.stack;
    const tableArn = JSON.stringify(s.stack.resolve(ratchet.reputation.table.tableArn));
    for (const handler of [ratchet.edge, ratchet.feed!, ratchet.consumer]) {
      expect(JSON.stringify(roleStatements(s.template, handler))).not.toContain(tableArn);
      const env = resources(s)[functionLogicalId(handler)]!.Properties.Environment.Variables;
      expect(env.REPUTATION_TABLE).toBeUndefined();
    }
  });

  it('the inbox table streams its new images', () => {
    const inbox = resources(s)[s.stack.getLogicalId(s.stack.ratchet.inboxTable.node.defaultChild as never)]!;
    expect(inbox.Properties.StreamSpecification).toEqual({ StreamViewType: 'NEW_IMAGE' });
  });

  it("the counter's mapping: the inbox stream, large batches over a window, one at a time a shard, bisected, bounded, to an on-failure queue", () => {
    const { counter, table } = s.stack.ratchet.reputation;
    const c = REPUTATION.counting;
    const mapping = resources(s)[s.stack.getLogicalId(counter.mapping)]!.Properties;
    expect(mapping).toEqual({
      FunctionName: { Ref: functionLogicalId(counter.handler) },
      EventSourceArn: s.stack.resolve(s.stack.ratchet.inboxTable.tableStreamArn),
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: c.batchSize,
      MaximumBatchingWindowInSeconds: c.maxBatchingWindowSeconds,
      ParallelizationFactor: 1,
      TumblingWindowInSeconds: c.tumblingWindowSeconds,
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: c.retryAttempts,
      MaximumRecordAgeInSeconds: c.maxRecordAgeSeconds,
      DestinationConfig: { OnFailure: { Destination: s.stack.resolve(counter.failures.queueArn) } },
      FilterCriteria: { Filters: [{ Pattern: '{"eventName":["INSERT","MODIFY"]}' }] },
    });
    const fn = resources(s)[functionLogicalId(counter.handler)]!.Properties;
    expect(fn.ReservedConcurrentExecutions).toBe(c.reservedConcurrency);
    expect(fn.Environment.Variables).toMatchObject({
      REPUTATION_TABLE: s.stack.resolve(table.tableName),
      POWERTOOLS_SERVICE_NAME: 'ratchet-reputation-counter',
    });
    expect(fn.Environment.Variables.REPUTATION_TOPIC_ARN).toBeUndefined();
    // The on-failure queue alarms at one message.
    s.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: s.stack.resolve(counter.failures.queueName) }],
      Threshold: 1,
    });
  });

  it('IAM: the counter reads the inbox stream only, GetItem/UpdateItem on the table only, SendMessage to its queue only', () => {
    const { counter, table } = s.stack.ratchet.reputation;
    expect(grants(roleStatements(s.template, counter.handler))).toEqual(
      expectedGrants(s.stack, [
        [
          ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'],
          [s.stack.ratchet.inboxTable.tableStreamArn!],
        ],
        [['dynamodb:ListStreams'], ['*']],
        [['dynamodb:GetItem', 'dynamodb:UpdateItem'], [table.tableArn]],
        [['sqs:SendMessage'], [counter.failures.queueArn]],
        [['logs:CreateLogStream', 'logs:PutLogEvents'], [counter.handler.logGroup.logGroupArn]],
      ]),
    );
  });

  it('a bad threshold in context fails the synth, naming it', () => {
    expect(() => synthesizeTemplate({ reputationWarnBouncePercent: 5 })).toThrow(/REPUTATION_WARN_BOUNCE_PERCENT/);
  });
});
