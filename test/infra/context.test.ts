/**
 * CDK context reaches the template: one synth with every setting overridden (as the CLI would pass
 * them: strings, plus cdk.json-style numbers, booleans and arrays), and the parser's refusals.
 */
import { Construct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../lib/config.js';
import { API } from '../../lib/definitions.js';
import {
  expectedGrants,
  functionLogicalId,
  grants,
  logicalId,
  roleStatements,
  synthesize,
  type Synthesized,
} from './helpers.js';

const OTHER_TOPIC = 'arn:aws:sns:eu-west-1:111111111111:other-ses-events';
const THIRD_TOPIC = 'arn:aws:sns:eu-west-1:222222222222:third';

let s: Synthesized;
beforeAll(() => {
  s = synthesize({
    extraTopicArns: ` ${OTHER_TOPIC}, ${THIRD_TOPIC} ,`,
    inboxTtlDays: '30',
    postmarkAllowedIps: ['3.134.147.250', '50.31.156.6'],
    throttleRateLimit: '20',
    throttleBurstLimit: 40,
    createConfigurationSet: 'false',
    softBounceLimit: '3',
    softBounceWindowDays: 7,
    sweepAfterSeconds: '600',
    logRetentionDays: 7,
    resourcePrefix: 'ratchet-staging',
    alarmEmail: ' ops@example.com ',
  });
});
afterAll(() => s?.cleanup());

const env = (fn: 'edge' | 'consumer' | 'sweeper') =>
  (s.template.toJSON().Resources[functionLogicalId(s.stack[fn])] as any).Properties.Environment.Variables as Record<
    string,
    unknown
  >;

describe('context overrides', () => {
  it('extra topic ARNs join the edge allowlist and its ConfirmSubscription grant', () => {
    expect(env('edge').SNS_TOPIC_ARNS).toEqual({
      'Fn::Join': ['', [{ Ref: logicalId(s.stack.topic) }, `,${OTHER_TOPIC},${THIRD_TOPIC}`]],
    });
    const g = grants(roleStatements(s.template, s.stack.edge));
    expect(g['sns:ConfirmSubscription']).toEqual(
      expectedGrants(s.stack, [[['sns:ConfirmSubscription'], [s.stack.topic.topicArn, OTHER_TOPIC, THIRD_TOPIC]]])[
        'sns:ConfirmSubscription'
      ],
    );
  });

  it('inbox TTL, Postmark IP allowlist, soft-bounce policy and sweep age reach the handlers', () => {
    expect(env('edge')).toMatchObject({ INBOX_TTL_DAYS: '30', POSTMARK_ALLOWED_IPS: '3.134.147.250,50.31.156.6' });
    expect(env('consumer')).toMatchObject({ SOFT_BOUNCE_LIMIT: '3', SOFT_BOUNCE_WINDOW_DAYS: '7' });
    expect(env('sweeper')).toMatchObject({ SWEEP_AFTER_SECONDS: '600' });
    expect(env('edge')).toMatchObject({ SWEEP_AFTER_SECONDS: '600' });
  });

  it('resourcePrefix names every physical resource, so a second stack fits in the same account and region', () => {
    const props = (type: string) => Object.values(s.template.findResources(type)).map((r: any) => r.Properties);
    expect(props('AWS::DynamoDB::Table').map((p) => p.TableName).sort()).toEqual([
      'ratchet-staging-inbox',
      'ratchet-staging-suppressions',
    ]);
    expect(props('AWS::SQS::Queue').map((p) => p.QueueName).sort()).toEqual(['ratchet-staging-events', 'ratchet-staging-events-dlq']);
    const secretNames = props('AWS::SecretsManager::Secret').map((p) => p.Name);
    expect(secretNames.length).toBeGreaterThan(0);
    for (const name of secretNames) expect(name).toMatch(/^ratchet-staging\/[a-z]+$/);
    // The functions are told the names, never left to the defaults.
    expect(env('edge').INBOX_TABLE).toEqual({ Ref: logicalId(s.stack.inboxTable) });
    expect(env('consumer').SUPPRESSION_TABLE).toEqual({ Ref: logicalId(s.stack.suppressionTable) });
  });

  it('alarmEmail subscribes that address to the alarm topic', () => {
    s.template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
      TopicArn: { Ref: logicalId(s.stack.alarms.topic) },
    });
  });

  it('stage throttling, and SNS pacing defaults to half the stage rate', () => {
    s.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      DefaultRouteSettings: { ThrottlingRateLimit: 20, ThrottlingBurstLimit: 40 },
    });
    s.template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'https',
      DeliveryPolicy: { throttlePolicy: { maxReceivesPerSecond: 10 } },
    });
  });

  it('log retention', () => {
    s.template.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 7 });
  });

  it('createConfigurationSet=false: no configuration set or its output, but SES in this account may still publish', () => {
    s.template.resourceCountIs('AWS::SES::ConfigurationSet', 0);
    s.template.resourceCountIs('AWS::SES::ConfigurationSetEventDestination', 0);
    expect(s.template.toJSON().Outputs.ConfigurationSetName).toBeUndefined();
    s.template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [{ Ref: logicalId(s.stack.topic) }],
      PolicyDocument: {
        Statement: [
          {
            Sid: 'AllowSesPublishFromThisAccount',
            Effect: 'Allow',
            Action: 'sns:Publish',
            Principal: { Service: 'ses.amazonaws.com' },
            Resource: { Ref: logicalId(s.stack.topic) },
            Condition: {
              StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
              ArnLike: {
                'aws:SourceArn': {
                  'Fn::Join': [
                    '',
                    ['arn:', { Ref: 'AWS::Partition' }, ':ses:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':*'],
                  ],
                },
              },
            },
          },
        ],
      },
    });
  });
});

describe('context parsing', () => {
  // A bare root construct: an App would create a temporary output directory each time.
  const config = (context: Record<string, unknown>) => {
    const root = new Construct(undefined as never, '');
    for (const [key, value] of Object.entries(context)) root.node.setContext(key, value);
    return readConfig(root.node);
  };

  it('defaults', () => {
    expect(config({})).toMatchObject({
      resourcePrefix: 'ratchet',
      alarmEmail: undefined,
      extraTopicArns: [],
      inboxTtlDays: 30,
      postmarkAllowedIps: undefined,
      throttleRateLimit: API.throttleRateLimit,
      throttleBurstLimit: API.throttleBurstLimit,
      snsMaxReceivesPerSecond: API.snsMaxReceivesPerSecond,
      createConfigurationSet: true,
      softBounceLimit: undefined,
      softBounceWindowDays: undefined,
    });
  });

  it('an explicit SNS pace is kept, but never above the stage rate (a 429 would lose SES events)', () => {
    expect(config({ snsMaxReceivesPerSecond: '5' }).snsMaxReceivesPerSecond).toBe(5);
    expect(config({ throttleRateLimit: 1 }).snsMaxReceivesPerSecond).toBe(1);
    expect(() => config({ throttleRateLimit: 10, snsMaxReceivesPerSecond: 11 })).toThrow(/must not exceed/);
  });

  it('refuses values that do not parse instead of falling back to a default', () => {
    expect(() => config({ inboxTtlDays: 'ninety' })).toThrow(/inboxTtlDays/);
    expect(() => config({ inboxTtlDays: 1.5 })).toThrow(/inboxTtlDays/);
    expect(() => config({ throttleRateLimit: -1 })).toThrow(/throttleRateLimit/);
    expect(() => config({ createConfigurationSet: 'yes' })).toThrow(/createConfigurationSet/);
    expect(() => config({ extraTopicArns: [1] })).toThrow(/extraTopicArns/);
    expect(() => config({ logRetentionDays: 8 })).toThrow(/logRetentionDays/);
    for (const prefix of ['Ratchet', 'r', '-ratchet', 'ratchet-', 'rat_chet', 'rat/chet', 'x'.repeat(41), 7]) {
      expect(() => config({ resourcePrefix: prefix }), String(prefix)).toThrow(/resourcePrefix/);
    }
    expect(config({ resourcePrefix: ' acme-prod ' }).resourcePrefix).toBe('acme-prod');
    for (const address of ['ops', 'ops@example', 'a@b.com,c@d.com', 'o ps@example.com', ['ops@example.com']]) {
      expect(() => config({ alarmEmail: address }), String(address)).toThrow(/alarmEmail/);
    }
  });

  it('blank values count as unset', () => {
    expect(config({ postmarkAllowedIps: ' ', extraTopicArns: '' })).toMatchObject({
      postmarkAllowedIps: undefined,
      extraTopicArns: [],
    });
  });
});
