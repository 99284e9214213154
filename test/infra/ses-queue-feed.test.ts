/**
 * `sesFeed=sqs` (the default), on both front doors: the SES topic feeds `<prefix>-ses-notifications`,
 * writable only by SNS for the allowed topics, drained in batches by a function running the edge code,
 * with a redrive policy and retentions that leave a dead letter at least 10 days to be redriven.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../lib/constructs/front-door.js';
import { ALARMS, SES_DEAD_LETTERS, SES_FEED } from '../../lib/definitions.js';
import {
  expectedGrants,
  functionLogicalId,
  grants,
  logicalId,
  resources,
  resourcesByPath,
  roleStatements,
  type Synthesized,
  synthesizeTemplate,
} from './helpers.js';

const FRONTS = ['api-gateway', 'function-url'] as const;
const OTHER_TOPIC = 'arn:aws:sns:us-east-1:111122223333:other-account-ses';
const DAY = 86_400;
const SQS_CONSUME = [
  'sqs:ChangeMessageVisibility',
  'sqs:DeleteMessage',
  'sqs:GetQueueAttributes',
  'sqs:GetQueueUrl',
  'sqs:ReceiveMessage',
];

const synthesized = new Map<string, Synthesized>();
beforeAll(() => {
  for (const front of FRONTS) synthesized.set(front, synthesizeTemplate({ front, extraTopicArns: OTHER_TOPIC }));
}, 180_000);
afterAll(() => {
  for (const s of synthesized.values()) s.cleanup();
});

describe.each(FRONTS)('sesFeed=sqs (default), front=%s', (front) => {
  const s = () => synthesized.get(front)!;
  const r = () => s().stack.ratchet;
  const feedQueue = () => r().sesQueue!.queue;
  const props = (construct: Parameters<typeof logicalId>[0]) => resources(s())[logicalId(construct)]!.Properties;
  const fnProps = (handler: NonNullable<ReturnType<typeof r>['feed']>) =>
    resources(s())[functionLogicalId(handler)]!.Properties;

  it('the topic feeds <prefix>-ses-notifications over SQS, with raw message delivery off and the SES dead-letter queue; no HTTPS subscription', () => {
    const subscriptions = Object.values(s().template.findResources('AWS::SNS::Subscription')).map((x) => x.Properties);
    expect(subscriptions).toHaveLength(1);
    const [sub] = subscriptions;
    expect(sub).toMatchObject({
      Protocol: 'sqs',
      TopicArn: { Ref: logicalId(s().stack.ratchet.sesTopic) },
      Endpoint: { 'Fn::GetAtt': [logicalId(feedQueue()), 'Arn'] },
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [logicalId(s().stack.ratchet.sesDeadLetterQueue), 'Arn'] },
      },
    });
    // Off (or absent, which SNS reads as off): the body is the signed envelope the feed verifies.
    expect([false, undefined]).toContain(sub!.RawMessageDelivery);
    expect(props(feedQueue())).toMatchObject({ QueueName: 'ratchet-ses-notifications', SqsManagedSseEnabled: true });
  });

  it('the topic, its policy and the configuration set are the same as with sesFeed=https', () => {
    const today = JSON.parse(readFileSync(new URL(`./fixtures/ses-https-${front}.json`, import.meta.url), 'utf8'));
    const now = resourcesByPath(s(), r(), r().ses);
    for (const path of [
      'SesFeed/SesEventsTopic/Resource',
      'SesFeed/SesEventsTopic/Policy/Resource',
      'SesFeed/ConfigurationSet/Resource',
      'SesFeed/SesDeadLetterQueue/Resource',
    ]) {
      expect(now[path], path).toEqual(today[path]);
    }
  });

  it("queue policy: sqs:SendMessage for sns.amazonaws.com only, with aws:SourceArn among the stack's topic and extraTopicArns; TLS only", () => {
    const policy = Object.values(s().template.findResources('AWS::SQS::QueuePolicy')).find(
      (x) => JSON.stringify(x.Properties.Queues) === JSON.stringify([{ Ref: logicalId(feedQueue()) }]),
    )!;
    const statements = policy.Properties.PolicyDocument.Statement as Array<Record<string, any>>;
    expect(statements.filter((x) => x.Effect === 'Allow')).toEqual([
      {
        Sid: 'AllowSesTopics',
        Effect: 'Allow',
        Action: 'sqs:SendMessage',
        Principal: { Service: 'sns.amazonaws.com' },
        Resource: { 'Fn::GetAtt': [logicalId(feedQueue()), 'Arn'] },
        Condition: { ArnEquals: { 'aws:SourceArn': [{ Ref: logicalId(s().stack.ratchet.sesTopic) }, OTHER_TOPIC] } },
      },
    ]);
    expect(statements.filter((x) => x.Effect === 'Deny')).toEqual([
      expect.objectContaining({
        Action: 'sqs:*',
        Principal: { AWS: '*' },
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    ]);
  });

  it('event source mapping: the feed function, batches of at most 10, ReportBatchItemFailures', () => {
    const mappings = Object.values(s().template.findResources('AWS::Lambda::EventSourceMapping')).map(
      (x) => x.Properties,
    );
    expect(mappings).toHaveLength(3); // the consumer's and the reputation counter's beside it
    const mapping = mappings.find(
      (m) => JSON.stringify(m.EventSourceArn) === JSON.stringify({ 'Fn::GetAtt': [logicalId(feedQueue()), 'Arn'] }),
    )!;
    expect(mapping.FunctionName).toEqual({ Ref: functionLogicalId(r().feed!) });
    expect(mapping.BatchSize).toBe(SES_FEED.batchSize);
    expect(mapping.BatchSize).toBeLessThanOrEqual(10);
    expect(mapping.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
  });

  it('redrive and retentions: a message that used up every receive still has at least 10 days left in the SES dead-letter queue', () => {
    const queue = props(feedQueue());
    const dlq = props(s().stack.ratchet.sesDeadLetterQueue);
    const fn = fnProps(r().feed!);
    const mapping = Object.values(s().template.findResources('AWS::Lambda::EventSourceMapping'))
      .map((x) => x.Properties)
      .find((m) => JSON.stringify(m.FunctionName) === JSON.stringify({ Ref: functionLogicalId(r().feed!) }))!;
    expect(queue.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [logicalId(s().stack.ratchet.sesDeadLetterQueue), 'Arn'] },
      maxReceiveCount: SES_FEED.maxReceiveCount,
    });
    expect(dlq.MessageRetentionPeriod).toBe(SES_DEAD_LETTERS.retentionDays * DAY);
    // No invocation still holds a message when it becomes visible again (AWS: 6x the timeout + the window).
    const window = mapping.MaximumBatchingWindowInSeconds ?? 0;
    expect(queue.VisibilityTimeout).toBeGreaterThanOrEqual(6 * fn.Timeout + window);
    // A dead letter keeps its original enqueue time: it is at most retention + receives old when it moves.
    const exhaustSeconds = queue.RedrivePolicy.maxReceiveCount * (queue.VisibilityTimeout + window);
    const oldestOnArrival = queue.MessageRetentionPeriod + exhaustSeconds;
    const daysLeft = (dlq.MessageRetentionPeriod - oldestOnArrival) / DAY;
    expect(daysLeft).toBeGreaterThanOrEqual(SES_FEED.minimumDeadLetterDaysLeft);
    expect(SES_FEED.minimumDeadLetterDaysLeft).toBe(10);
    expect(queue.MessageRetentionPeriod).toBeLessThanOrEqual(4 * DAY - exhaustSeconds);
  });

  it('feed function: its own nodejs22.x arm64 function on lambdas/ses-feed.ts, bundled like the edge', () => {
    const fn = fnProps(r().feed!);
    const edge = fnProps(s().stack.ratchet.edge);
    expect(fn).toMatchObject({
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      Timeout: SES_FEED.timeoutSeconds,
    });
    expect(fn.LoggingConfig).toEqual({ ...edge.LoggingConfig, LogGroup: { Ref: logicalId(r().feed!.logGroup) } });
    expect(functionLogicalId(r().feed!)).not.toBe(functionLogicalId(s().stack.ratchet.edge));
  });

  it("feed environment: the edge's without any secret ARN (SES has no secret), plus SES_DEAD_LETTER_QUEUE_URL", () => {
    const env = fnProps(r().feed!).Environment.Variables;
    const edge = fnProps(s().stack.ratchet.edge).Environment.Variables;
    const secretArns = Object.keys(edge).filter((name) => name.endsWith('_SECRET_ARN'));
    expect(secretArns).toContain('SENDGRID_SECRET_ARN');
    expect(secretArns).toContain('UNSUBSCRIBE_SECRET_ARN');
    const withoutSecrets = Object.fromEntries(Object.entries(edge).filter(([name]) => !secretArns.includes(name)));
    expect(env).toEqual({
      ...withoutSecrets,
      SES_DEAD_LETTER_QUEUE_URL: { Ref: logicalId(s().stack.ratchet.sesDeadLetterQueue) },
    });
    expect(edge.SES_DEAD_LETTER_QUEUE_URL).toBeUndefined();
  });

  it("feed grants: the edge's without any secret, plus SendMessage on the SES dead-letter queue and consuming the feed queue", () => {
    const { stack } = s();
    const edgeGrants = grants(roleStatements(s().template, stack.ratchet.edge));
    const feedGrants = grants(roleStatements(s().template, r().feed!));
    const logs = (h: typeof stack.ratchet.edge) => JSON.stringify(stack.resolve(h.logGroup.logGroupArn));
    const withoutLogs = (g: Record<string, string[]>, h: typeof stack.ratchet.edge) =>
      Object.fromEntries(
        Object.entries(g)
          .map(([a, rs]) => [a, rs.filter((x) => x !== logs(h))] as const)
          .filter(([, rs]) => rs.length > 0),
      );
    const extra = expectedGrants(stack, [
      [['sqs:SendMessage'], [stack.ratchet.sesDeadLetterQueue.queueArn]],
      [SQS_CONSUME, [feedQueue().queueArn]],
    ]);
    const { 'secretsmanager:GetSecretValue': edgeSecrets, ...edgeWithoutSecrets } = withoutLogs(
      edgeGrants,
      stack.ratchet.edge,
    );
    expect(edgeSecrets!.length).toBeGreaterThan(1);
    const expected: Record<string, string[]> = { ...edgeWithoutSecrets };
    for (const [action, rs] of Object.entries(extra))
      expected[action] = [...new Set([...(expected[action] ?? []), ...rs])].sort();
    expect(withoutLogs(feedGrants, r().feed!)).toEqual(expected);
    expect(feedGrants['secretsmanager:GetSecretValue']).toBeUndefined();
    expect(feedGrants['sns:ConfirmSubscription']).toEqual(
      expectedGrants(stack, [[['sns:ConfirmSubscription'], [stack.ratchet.sesTopic.topicArn, OTHER_TOPIC]]])[
        'sns:ConfirmSubscription'
      ],
    );
    // The edge itself gains nothing on the feed's queues.
    expect(JSON.stringify(edgeGrants)).not.toContain(logicalId(feedQueue()));
    expect(JSON.stringify(edgeGrants)).not.toContain(logicalId(stack.ratchet.sesDeadLetterQueue));
  });

  it("alarms: the feed queue oldest message against QueueBacklogOld's 30 minutes; the SES dead-letter queue; feed crashes", () => {
    const alarms = Object.fromEntries(
      s().stack.ratchet.alarms.alarms.map((a) => [a.node.id, resources(s())[logicalId(a)]!.Properties]),
    );
    expect(alarms.SesFeedBacklogOld).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateAgeOfOldestMessage',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(feedQueue()), 'QueueName'] } }],
      Statistic: 'Maximum',
      Threshold: ALARMS.queueAgeSeconds,
    });
    expect(alarms.SesFeedBacklogOld!.Threshold).toBe(alarms.QueueBacklogOld!.Threshold);
    expect(alarms.SesDeadLettersNotEmpty).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [
        { Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(s().stack.ratchet.sesDeadLetterQueue), 'QueueName'] } },
      ],
      Threshold: 1,
    });
    expect(alarms.FeedFunctionErrors).toMatchObject({
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionLogicalId(r().feed!) } }],
    });
    expect(alarms.SesSubscriptionNotDelivering).toBeUndefined();
  });

  it('POST /webhooks/ses stays, for topics subscribed over HTTPS by hand; outputs name the feed queue', () => {
    if (front === 'api-gateway') {
      const keys = Object.values(s().template.findResources('AWS::ApiGatewayV2::Route')).map(
        (x) => x.Properties.RouteKey,
      );
      expect(keys).toContain(ROUTES.ses);
    } else {
      s().template.resourceCountIs('AWS::Lambda::Url', 1);
    }
    const outputs = s().template.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(outputs.SesQueueUrl?.Value).toEqual({ Ref: logicalId(feedQueue()) });
    expect(outputs.SesQueueName?.Value).toEqual({ 'Fn::GetAtt': [logicalId(feedQueue()), 'QueueName'] });
    expect(outputs.SesQueueArn?.Value).toEqual({ 'Fn::GetAtt': [logicalId(feedQueue()), 'Arn'] });
  });
});
