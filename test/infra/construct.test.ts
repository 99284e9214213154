/**
 * The `Ratchet` construct in someone else's CDK app: no props at all, or a few, in a plain `Stack`;
 * props checked with the same messages as CDK context; its parts and grant methods.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import { describe, expect, it } from 'vitest';
import { Ratchet } from '../../lib/constructs/ratchet.js';
import { RatchetStack } from '../../lib/stack.js';
import { NO_BUNDLING } from './helpers.js';

const freshStack = () => new Stack(new App({ context: { ...NO_BUNDLING } }), 'MyApp');
type Resources = Record<string, { Type: string; Properties: Record<string, any> }>;

describe('the Ratchet construct in a plain Stack', { timeout: 180_000 }, () => {
  it('new Ratchet(stack, "Ratchet") with no props synthesizes, with every default', () => {
    const stack = freshStack();
    const r = new Ratchet(stack, 'Ratchet');
    const template = Template.fromStack(stack);
    const resources = template.toJSON().Resources as Resources;
    const tables = Object.values(resources)
      .filter((x) => x.Type === 'AWS::DynamoDB::Table')
      .map((x) => x.Properties.TableName);
    expect(tables.sort()).toEqual(['ratchet-inbox', 'ratchet-reputation', 'ratchet-suppressions']);
    // The edge, the consumer, the SES feed, the reputation evaluator and counter.
    template.resourceCountIs('AWS::Lambda::Function', 5);
    template.resourceCountIs('AWS::ApiGatewayV2::Api', 1);
    expect(r.config).toMatchObject({
      resourcePrefix: 'ratchet',
      front: 'api-gateway',
      sesFeed: 'sqs',
      inboxTtlDays: 30,
    });
    // Its parts, without going through a stack that copies them.
    for (const part of [
      r.inboxTable,
      r.suppressionTable,
      r.queue,
      r.deadLetterQueue,
      r.sesTopic,
      r.sesDeadLetterQueue,
      r.sesFeedQueue,
      r.edge,
      r.consumer,
      r.feed,
      r.webhookApi,
      r.alarmTopic,
    ]) {
      expect(part).toBeDefined();
    }
  });

  it('three props reach the template: resourcePrefix, front and inboxTtlDays', () => {
    const stack = freshStack();
    const r = new Ratchet(stack, 'Mail', { resourcePrefix: 'acme-mail', front: 'function-url', inboxTtlDays: 45 });
    const resources = Template.fromStack(stack).toJSON().Resources as Resources;
    const names = Object.values(resources)
      .map((x) => x.Properties?.TableName ?? x.Properties?.QueueName)
      .filter(Boolean)
      .sort();
    expect(names).toEqual([
      'acme-mail-events',
      'acme-mail-events-dlq',
      'acme-mail-inbox',
      'acme-mail-reputation',
      'acme-mail-reputation-failures',
      'acme-mail-ses-dead-letters',
      'acme-mail-ses-notifications',
      'acme-mail-suppressions',
    ]);
    expect(Object.values(resources).filter((x) => x.Type === 'AWS::Lambda::Url')).toHaveLength(1);
    expect(Object.values(resources).filter((x) => x.Type.startsWith('AWS::ApiGatewayV2::'))).toEqual([]);
    const edge = resources[stack.getLogicalId(r.edge.function.node.defaultChild as never)]!;
    expect(edge.Properties.Environment.Variables.INBOX_TTL_DAYS).toBe('45');
    expect(r.webhookApi).toBeUndefined();
  });

  it('refuses a prop with the message its CDK context key gives', () => {
    const viaProps = (props: ConstructorParameters<typeof Ratchet>[2]) => {
      try {
        new Ratchet(freshStack(), 'Ratchet', props);
      } catch (error) {
        return (error as Error).message;
      }
      return 'no error';
    };
    const viaContext = (context: Record<string, unknown>) => {
      try {
        new RatchetStack(new App({ context: { ...NO_BUNDLING, ...context } }), 'Ctx');
      } catch (error) {
        return (error as Error).message;
      }
      return 'no error';
    };
    for (const [props, context] of [
      [{ sesRouteRateLimit: 99 }, { sesRouteRateLimit: '99' }],
      [
        { edgeReservedConcurrency: 49, front: 'function-url' as const },
        { edgeReservedConcurrency: 49, front: 'function-url' },
      ],
      [{ resourcePrefix: 'Acme' }, { resourcePrefix: 'Acme' }],
      [{ logRetentionDays: 8 }, { logRetentionDays: 8 }],
      [{ throttleRateLimit: -1 }, { throttleRateLimit: -1 }],
      [{ snsMaxAgeSeconds: 30 * 86_400 }, { snsMaxAgeSeconds: String(30 * 86_400) }],
    ] as const) {
      const message = viaProps(props);
      expect(message, JSON.stringify(props)).toMatch(/^context /);
      expect(viaContext(context), JSON.stringify(context)).toBe(message);
    }
  });

  it('grantReadSuppressions: GetItem and BatchGetItem on the suppression table, nothing else', () => {
    const stack = freshStack();
    const r = new Ratchet(stack, 'Ratchet');
    const role = new iam.Role(stack, 'Sender', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
    r.grantReadSuppressions(role);
    const policies = Object.values(Template.fromStack(stack).findResources('AWS::IAM::Policy')).filter((p) =>
      JSON.stringify(p.Properties.Roles).includes(stack.getLogicalId(role.node.defaultChild as never)),
    );
    expect(policies.flatMap((p) => p.Properties.PolicyDocument.Statement)).toEqual([
      {
        Effect: 'Allow',
        Action: ['dynamodb:GetItem', 'dynamodb:BatchGetItem'],
        Resource: { 'Fn::GetAtt': [stack.getLogicalId(r.tables.suppressions.node.defaultChild as never), 'Arn'] },
      },
    ]);
  });

  it('sync is a prop like the others: syncProviders set in code (no context) creates the worker, and a bad list is refused', () => {
    const stack = freshStack();
    const r = new Ratchet(stack, 'Ratchet', { syncProviders: ['ses', 'mailgun'], mailgunDomains: ['mg.example.com'] });
    expect(r.sync).toBeDefined();
    const resources = Template.fromStack(stack).toJSON().Resources as Resources;
    const names = Object.values(resources)
      .filter((x) => x.Type === 'AWS::SQS::Queue')
      .map((x) => x.Properties.QueueName);
    expect(names).toContain('ratchet-sync');
    expect(new Ratchet(freshStack(), 'Ratchet').sync).toBeUndefined();
    expect(() => new Ratchet(freshStack(), 'Ratchet', { syncProviders: ['mailgun'] })).toThrow(/MAILGUN_DOMAINS/);
  });
});
