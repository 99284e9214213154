/**
 * `sesFeed=https`: SES -> SNS -> HTTPS as before the feed queue, on both front doors. The SES resources
 * are exactly today's (fixtures/ses-https-*.json, taken from the template before the feed existed), and
 * one alarm catches a subscription that delivers nothing (PendingConfirmation).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PENDING_PERIODS } from '../../lib/constructs/signal-alarms.js';
import { API, SES_DEAD_LETTERS } from '../../lib/definitions.js';
import {
  functionLogicalId,
  logicalId,
  render,
  resources,
  resourcesByPath,
  type Synthesized,
  synthesizeTemplate,
} from './helpers.js';

const FRONTS = ['api-gateway', 'function-url'] as const;
const synthesized = new Map<string, Synthesized>();
beforeAll(() => {
  for (const front of FRONTS) synthesized.set(front, synthesizeTemplate({ front, sesFeed: 'https' }));
}, 180_000);
afterAll(() => {
  for (const s of synthesized.values()) s.cleanup();
});

describe.each(FRONTS)('sesFeed=https, front=%s', (front) => {
  const s = () => synthesized.get(front)!;
  const sub = () => resources(s())[logicalId(s().stack.ratchet.sesSubscription)]!;

  it("the SES resources are today's, resource for resource", () => {
    const today = JSON.parse(readFileSync(new URL(`./fixtures/ses-https-${front}.json`, import.meta.url), 'utf8'));
    const r = s().stack.ratchet;
    expect(resourcesByPath(s(), r, r.ses)).toEqual(today);
  });

  it('creates no feed queue, no feed function and no second event source mapping', () => {
    const r = s().stack.ratchet;
    expect(r.sesQueue).toBeUndefined();
    expect(r.feed).toBeUndefined();
    const queues = Object.values(s().template.findResources('AWS::SQS::Queue')).map((q) => q.Properties.QueueName);
    expect(queues).not.toContain('ratchet-ses-notifications');
    // The edge, the consumer, the reputation evaluator and counter; the consumer's queue and the inbox stream.
    s().template.resourceCountIs('AWS::Lambda::Function', 4);
    const sources = Object.values(s().template.findResources('AWS::Lambda::EventSourceMapping'));
    expect(sources.map((m) => m.Properties.FunctionName.Ref).sort()).toEqual(
      [functionLogicalId(r.consumer), functionLogicalId(r.reputation.counter.handler)].sort(),
    );
    expect(s().template.toJSON().Outputs.SesQueueUrl).toBeUndefined();
  });

  it('subscribes the topic over HTTPS to <front door>/webhooks/ses, paced, with a longer retry policy and the SES dead-letter queue', () => {
    s().template.resourceCountIs('AWS::SNS::Subscription', 1);
    const p = sub().Properties;
    expect(p.Protocol).toBe('https');
    expect(p.TopicArn).toEqual({ Ref: logicalId(s().stack.ratchet.sesTopic) });
    expect(render(p.Endpoint)).toMatch(/\/webhooks\/ses$/);
    expect(p.DeliveryPolicy.throttlePolicy).toEqual({ maxReceivesPerSecond: API.snsMaxReceivesPerSecond });
    expect(p.DeliveryPolicy.healthyRetryPolicy).toMatchObject({ numRetries: 50, maxDelayTarget: 60 });
    expect(p.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [logicalId(s().stack.ratchet.sesDeadLetterQueue), 'Arn'] },
    });
    const q = resources(s())[logicalId(s().stack.ratchet.sesDeadLetterQueue)]!.Properties;
    expect(q).toMatchObject({
      QueueName: 'ratchet-ses-dead-letters',
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: SES_DEAD_LETTERS.retentionDays * 86_400,
    });
  });

  it('waits for the front door (SNS confirms at once and counts a 404 or 403 as delivered)', () => {
    const ready = s().stack.ratchet.front.ready.map((d) => logicalId(d as never));
    expect(sub().DependsOn).toEqual(expect.arrayContaining(ready));
  });

  it(`alarms when the topic publishes more than SNS delivers or fails, ${PENDING_PERIODS} periods in a row (a pending subscription)`, () => {
    const alarm = s().stack.ratchet.alarms.alarms.find((a) => a.node.id === 'SesSubscriptionNotDelivering')!;
    const p = resources(s())[logicalId(alarm)]!.Properties;
    expect(p).toMatchObject({ Threshold: 1, EvaluationPeriods: PENDING_PERIODS, DatapointsToAlarm: PENDING_PERIODS });
    const metrics = p.Metrics as Array<Record<string, any>>;
    const expression = metrics.find((m) => m.Expression)!;
    expect(expression.Expression).toBe('FILL(published, 0) - (FILL(delivered, 0) + FILL(failed, 0))');
    const byId = Object.fromEntries(metrics.filter((m) => m.MetricStat).map((m) => [m.Id, m.MetricStat]));
    expect(Object.keys(byId).sort()).toEqual(['delivered', 'failed', 'published']);
    for (const [id, name] of [
      ['published', 'NumberOfMessagesPublished'],
      ['delivered', 'NumberOfNotificationsDelivered'],
      ['failed', 'NumberOfNotificationsFailed'],
    ]) {
      expect(byId[id!], id).toMatchObject({
        Metric: {
          Namespace: 'AWS/SNS',
          MetricName: name,
          Dimensions: [
            { Name: 'TopicName', Value: { 'Fn::GetAtt': [logicalId(s().stack.ratchet.sesTopic), 'TopicName'] } },
          ],
        },
        Stat: 'Sum',
        Period: 300,
      });
    }
    expect(s().stack.ratchet.alarms.alarms.map((a) => a.node.id)).not.toContain('SesFeedBacklogOld');
  });
});
