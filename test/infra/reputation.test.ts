/**
 * Reputation on AWS: the table (keys, TTL), the evaluator's 5-minute schedule and reserved concurrency
 * of 1, the `<prefix>-reputation` topic, the two alarms on SendersInWarn / SendersInBreach, the
 * dashboard row, least-privilege IAM for the evaluator and the edge code, and thresholds from context.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

  it('IAM: the edge code may only UpdateItem the table (no read, no put, no delete), and is told its name', () => {
    const { ratchet } = s.stack;
    const tableArn = JSON.stringify(s.stack.resolve(ratchet.reputation.table.tableArn));
    for (const handler of [ratchet.edge, ratchet.feed!]) {
      const onTable = Object.entries(grants(roleStatements(s.template, handler)))
        .filter(([, on]) => on.includes(tableArn))
        .map(([action]) => action);
      expect(onTable).toEqual(['dynamodb:UpdateItem']);
      const env = resources(s)[functionLogicalId(handler)]!.Properties.Environment.Variables;
      expect(env.REPUTATION_TABLE).toEqual(s.stack.resolve(ratchet.reputation.table.tableName));
    }
    // The consumer does not count: it has no grant on the table at all.
    expect(JSON.stringify(roleStatements(s.template, ratchet.consumer))).not.toContain(tableArn);
  });

  it('a bad threshold in context fails the synth, naming it', () => {
    expect(() => synthesizeTemplate({ reputationWarnBouncePercent: 5 })).toThrow(/REPUTATION_WARN_BOUNCE_PERCENT/);
  });
});
