/** SES -> SNS -> HTTPS: the subscription, its dead-letter queue and its ordering after the API. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, SES_DEAD_LETTERS } from '../../lib/definitions.js';
import { logicalId, render, resources, synthesizeTemplate, type Synthesized } from './helpers.js';

let s: Synthesized;
beforeAll(() => {
  s = synthesizeTemplate();
}, 180_000);
afterAll(() => s?.cleanup());

const sub = () => resources(s)[logicalId(s.stack.sesSubscription)]!;

describe('SES -> SNS -> HTTPS', () => {
  it('subscribes the topic over HTTPS to <api>/webhooks/ses, paced, with a longer retry policy', () => {
    s.template.resourceCountIs('AWS::SNS::Subscription', 1);
    const p = sub().Properties;
    expect(p.Protocol).toBe('https');
    expect(p.TopicArn).toEqual({ Ref: logicalId(s.stack.topic) });
    expect(render(p.Endpoint)).toBe(
      `https://{Ref:${logicalId(s.stack.webhookApi!.api)}}.execute-api.{AWS::Region}.{AWS::URLSuffix}/webhooks/ses`,
    );
    expect(p.DeliveryPolicy.throttlePolicy).toEqual({ maxReceivesPerSecond: API.snsMaxReceivesPerSecond });
    expect(p.DeliveryPolicy.healthyRetryPolicy).toMatchObject({ numRetries: 50, maxDelayTarget: 60 });
  });

  it('has a redrive policy to <prefix>-ses-dead-letters: SSE, TLS-only, 14 days, writable only by SNS for this topic', () => {
    const q = resources(s)[logicalId(s.stack.sesDeadLetterQueue)]!.Properties;
    expect(sub().Properties.RedrivePolicy).toEqual({ deadLetterTargetArn: { 'Fn::GetAtt': [logicalId(s.stack.sesDeadLetterQueue), 'Arn'] } });
    expect(q).toMatchObject({ QueueName: 'ratchet-ses-dead-letters', SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 86_400 });
    expect(SES_DEAD_LETTERS.retentionDays).toBe(14);
    const policy = Object.values(s.template.findResources('AWS::SQS::QueuePolicy')).find(
      (x) => JSON.stringify(x.Properties.Queues) === JSON.stringify([{ Ref: logicalId(s.stack.sesDeadLetterQueue) }]),
    )!;
    const statements = policy.Properties.PolicyDocument.Statement as Array<Record<string, any>>;
    const allows = statements.filter((x) => x.Effect === 'Allow');
    expect(allows).toEqual([
      {
        Effect: 'Allow',
        Action: 'sqs:SendMessage',
        Principal: { Service: 'sns.amazonaws.com' },
        Resource: { 'Fn::GetAtt': [logicalId(s.stack.sesDeadLetterQueue), 'Arn'] },
        Condition: { ArnEquals: { 'aws:SourceArn': { Ref: logicalId(s.stack.topic) } } },
      },
    ]);
    expect(statements.filter((x) => x.Effect === 'Deny')).toEqual([
      expect.objectContaining({ Action: 'sqs:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    ]);
  });

  it('depends on the explicit deployment, the stage and every route (SNS confirms at once and never retries a 404)', () => {
    const deploymentId = Object.keys(s.template.findResources('AWS::ApiGatewayV2::Deployment'))[0]!;
    const routeIds = Object.keys(s.template.findResources('AWS::ApiGatewayV2::Route'));
    const permissionIds = Object.keys(
      s.template.findResources('AWS::Lambda::Permission', { Properties: { Principal: 'apigateway.amazonaws.com' } }),
    );
    expect(sub().DependsOn).toEqual(
      expect.arrayContaining([deploymentId, logicalId(s.stack.webhookApi!.stage), ...routeIds, ...permissionIds]),
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

  it('topic policy: TLS only, and only SES in this account (and this configuration set) may publish', () => {
    const policy = Object.values(s.template.findResources('AWS::SNS::TopicPolicy')).find(
      (x) => JSON.stringify(x.Properties.Topics) === JSON.stringify([{ Ref: logicalId(s.stack.topic) }]),
    )!;
    const statements = policy.Properties.PolicyDocument.Statement as Array<Record<string, any>>;
    expect(statements).toHaveLength(2);
    expect(statements.find((x) => x.Effect === 'Deny')).toMatchObject({
      Action: 'sns:Publish',
      Principal: '*',
      Condition: { Bool: { 'aws:SecureTransport': 'false' } },
    });
    const allow = statements.find((x) => x.Effect === 'Allow')!;
    expect(allow).toMatchObject({ Action: 'sns:Publish', Principal: { Service: 'ses.amazonaws.com' }, Resource: { Ref: logicalId(s.stack.topic) } });
    expect(allow.Condition.StringEquals['AWS:SourceAccount']).toEqual({ Ref: 'AWS::AccountId' });
    expect(render(allow.Condition.StringEquals['AWS:SourceArn'])).toBe(
      `arn:{AWS::Partition}:ses:{AWS::Region}:{AWS::AccountId}:configuration-set/{Ref:${logicalId(s.stack.configurationSet!)}}`,
    );
  });
});
