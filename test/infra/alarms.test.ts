/** Every alarm, on the one alarm topic, with default context. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDERS } from '../../lambdas/core/providers/index.js';
import { DEFAULT_REJECTED_REQUESTS_ALARM_THRESHOLD } from '../../lib/config.js';
import { pascal } from '../../lib/stack.js';
import { functionLogicalId, logicalId, resources, type Synthesized, synthesizeTemplate } from './helpers.js';

let s: Synthesized;
beforeAll(() => {
  s = synthesizeTemplate();
}, 180_000);
afterAll(() => s?.cleanup());

const alarms = () =>
  Object.fromEntries(
    s.stack.ratchet.alarms.alarms.map((a) => [
      a.node.id,
      resources(s)[logicalId(a)]!.Properties as Record<string, any>,
    ]),
  );
const providers = PROVIDERS.filter((p) => p.name !== 'unsubscribe');
const edgeMetric = (name: string, provider: string) => ({
  Namespace: 'Ratchet',
  MetricName: name,
  Dimensions: expect.arrayContaining([
    { Name: 'service', Value: 'ratchet-edge' },
    { Name: 'provider', Value: provider },
  ]),
});

describe('alarms', () => {
  it('every alarm notifies the alarm topic (TLS-only), fires at >= threshold and treats no data as fine', () => {
    const all = alarms();
    expect(Object.keys(all).sort()).toEqual(
      [
        'ConfigurationErrors',
        'ConsumerFunctionErrors',
        'DeadLetterQueueNotEmpty',
        'EdgeFunctionErrors',
        'EdgeServerErrors',
        'FeedFunctionErrors',
        'FrontDoorThrottled',
        'QueueBacklogOld',
        'ReputationFunctionErrors',
        'ReputationCountsDiscarded',
        'SendersInBreach',
        'SendersInWarn',
        'SesDeadLettersNotEmpty',
        'SesFeedBacklogOld',
        'SesNotificationsFailed',
        'SesUnsubscribeConfirmations',
        ...providers.map((p) => `RequestsRejected${pascal(p.name)}`),
      ].sort(),
    );
    expect(Object.keys(s.template.findResources('AWS::CloudWatch::Alarm'))).toHaveLength(Object.keys(all).length);
    for (const [id, p] of Object.entries(all)) {
      expect(p.AlarmActions, id).toEqual([{ Ref: logicalId(s.stack.ratchet.alarms.topic) }]);
      expect(p.ComparisonOperator, id).toBe('GreaterThanOrEqualToThreshold');
      expect(p.TreatMissingData, id).toBe('notBreaching');
      expect(p.Period ?? p.Metrics?.find((m: any) => m.MetricStat)?.MetricStat.Period, id).toBe(300);
    }
    expect(s.template.findResources('AWS::SNS::Subscription', { Properties: { Protocol: 'email' } })).toEqual({});
    s.template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [{ Ref: logicalId(s.stack.ratchet.alarms.topic) }],
    });
  });

  it('a message in either dead-letter queue alarms at once', () => {
    const all = alarms();
    for (const [id, queue] of [
      ['DeadLetterQueueNotEmpty', s.stack.ratchet.deadLetterQueue],
      ['SesDeadLettersNotEmpty', s.stack.ratchet.sesDeadLetterQueue],
    ] as const) {
      expect(all[id], id).toMatchObject({
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(queue), 'QueueName'] } }],
        Statistic: 'Maximum',
        Threshold: 1,
        EvaluationPeriods: 1,
      });
    }
  });

  it("the SES topic's NumberOfNotificationsFailed > 0 alarms", () => {
    expect(alarms().SesNotificationsFailed).toMatchObject({
      Namespace: 'AWS/SNS',
      MetricName: 'NumberOfNotificationsFailed',
      Dimensions: [{ Name: 'TopicName', Value: { 'Fn::GetAtt': [logicalId(s.stack.ratchet.sesTopic), 'TopicName'] } }],
      Statistic: 'Sum',
      Threshold: 1,
    });
  });

  it('a queued event older than 30 minutes alarms', () => {
    expect(alarms().QueueBacklogOld).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateAgeOfOldestMessage',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(s.stack.ratchet.queue), 'QueueName'] } }],
      Threshold: 1800,
    });
  });

  it('5xx from the API in three 5-minute periods in a row alarms; a blip does not', () => {
    expect(alarms().EdgeServerErrors).toMatchObject({
      Namespace: 'AWS/ApiGateway',
      MetricName: '5xx',
      Dimensions: [{ Name: 'ApiId', Value: { Ref: logicalId(s.stack.ratchet.webhookApi!.api) } }],
      Statistic: 'Sum',
      Threshold: 1,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
    });
  });

  it('a crash or timeout of any Lambda alarms', () => {
    for (const [id, handler] of [
      ['EdgeFunctionErrors', s.stack.ratchet.edge],
      ['ConsumerFunctionErrors', s.stack.ratchet.consumer],
      ['FeedFunctionErrors', s.stack.ratchet.feed!],
    ] as const) {
      expect(alarms()[id], id).toMatchObject({
        Namespace: 'AWS/Lambda',
        MetricName: 'Errors',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionLogicalId(handler) } }],
        Threshold: 1,
      });
    }
  });

  it('rejected requests per provider above the configurable threshold', () => {
    for (const p of providers) {
      expect(alarms()[`RequestsRejected${pascal(p.name)}`], p.name).toMatchObject({
        ...edgeMetric('RequestsRejected', p.name),
        Statistic: 'Sum',
        Threshold: DEFAULT_REJECTED_REQUESTS_ALARM_THRESHOLD,
      });
    }
  });

  it('API 429s (from the access log), SES UnsubscribeConfirmations > 0, ConfigurationErrors > 0 over every provider with a secret', () => {
    const all = alarms();
    expect(all.FrontDoorThrottled).toMatchObject({
      Namespace: 'Ratchet',
      MetricName: 'ApiThrottled',
      Statistic: 'Sum',
      Threshold: 1,
    });
    expect(all.SesUnsubscribeConfirmations).toMatchObject({
      ...edgeMetric('UnsubscribeConfirmations', 'ses'),
      Threshold: 1,
    });
    const config = all.ConfigurationErrors!;
    expect(config.Threshold).toBe(1);
    const stats = (config.Metrics as any[]).filter((m) => m.MetricStat).map((m) => m.MetricStat.Metric);
    expect(stats.map((m) => m.Dimensions.find((d: any) => d.Name === 'provider').Value).sort()).toEqual(
      [...s.stack.ratchet.secrets.byProvider.keys()].sort(),
    );
    for (const m of stats) expect(m).toMatchObject({ Namespace: 'Ratchet', MetricName: 'ConfigurationErrors' });
    expect((config.Metrics as any[]).find((m) => m.Expression).Expression).toMatch(/^SUM\(\[FILL\(m0, 0\)/);
  });
});
