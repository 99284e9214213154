/**
 * CDK context reaches the template: one synth with every setting overridden (as the CLI would pass
 * them: strings, plus cdk.json-style numbers, booleans and arrays), and the parser's refusals.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { Construct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProviderDefinition } from '../../lambdas/core/provider.js';
import { PROVIDERS } from '../../lambdas/core/providers/index.js';
import { providerSettingsFromContext, readConfig } from '../../lib/config.js';
import { resolveRatchetProps } from '../../lib/constructs/ratchet-props.js';
import { API } from '../../lib/definitions.js';
import {
  expectedGrants,
  functionLogicalId,
  grants,
  logicalId,
  roleStatements,
  type Synthesized,
  synthesizeTemplate,
} from './helpers.js';

const OTHER_TOPIC = 'arn:aws:sns:eu-west-1:111111111111:other-ses-events';
const THIRD_TOPIC = 'arn:aws:sns:eu-west-1:222222222222:third';

/** A value for every provider setting declared with a context key: a new declaration needs one here. */
const PROVIDER_SETTING_CONTEXT: Record<string, { given: unknown; env: string }> = {
  postmarkAllowedIps: { given: ['3.134.147.250', '50.31.156.6'], env: '3.134.147.250,50.31.156.6' },
};

let s: Synthesized;
beforeAll(() => {
  s = synthesizeTemplate({
    extraTopicArns: ` ${OTHER_TOPIC}, ${THIRD_TOPIC} ,`,
    // The HTTPS subscription, whose pace (snsMaxReceivesPerSecond) is checked below.
    sesFeed: 'https',
    inboxTtlDays: '45',
    inboxPointInTimeRecovery: 'true',
    ...Object.fromEntries(Object.entries(PROVIDER_SETTING_CONTEXT).map(([key, { given }]) => [key, given])),
    throttleRateLimit: '20',
    throttleBurstLimit: 40,
    createConfigurationSet: 'false',
    softBounceLimit: '3',
    softBounceWindowDays: 7,
    logRetentionDays: 7,
    logLevel: 'DEBUG',
    snsMaxReceivesPerSecond: '10',
    sesRouteRateLimit: 30,
    rejectedRequestsAlarmThreshold: '7',
    topicAliases: ' sendgrid:group:4242=newsletter , ses:main:weekly=newsletter',
    topicLabels: ['newsletter=Weekly newsletter'],
    resourcePrefix: 'ratchet-staging',
    alarmEmail: ' ops@example.com ',
  });
}, 180_000);
afterAll(() => s?.cleanup());

const env = (fn: 'edge' | 'consumer') =>
  (s.template.toJSON().Resources[functionLogicalId(s.stack.ratchet[fn])] as any).Properties.Environment
    .Variables as Record<string, unknown>;

describe('context overrides', () => {
  it('every provider setting declared with a context key reaches the edge environment under its variable', () => {
    const declared = PROVIDERS.flatMap((p) => p.settings).filter((setting) => setting.contextKey !== undefined);
    expect(declared.map((setting) => setting.variable)).toContain('POSTMARK_ALLOWED_IPS');
    for (const { contextKey, variable } of declared) {
      const sample = PROVIDER_SETTING_CONTEXT[contextKey!];
      expect(sample, `a sample value for context ${contextKey}`).toBeDefined();
      expect(env('edge')[variable]).toBe(sample!.env);
      expect(env('consumer')[variable]).toBeUndefined();
    }
  });

  it('extra topic ARNs join the edge allowlist and its ConfirmSubscription grant', () => {
    expect(env('edge').SNS_TOPIC_ARNS).toEqual({
      'Fn::Join': ['', [{ Ref: logicalId(s.stack.ratchet.sesTopic) }, `,${OTHER_TOPIC},${THIRD_TOPIC}`]],
    });
    const g = grants(roleStatements(s.template, s.stack.ratchet.edge));
    expect(g['sns:ConfirmSubscription']).toEqual(
      expectedGrants(s.stack, [
        [['sns:ConfirmSubscription'], [s.stack.ratchet.sesTopic.topicArn, OTHER_TOPIC, THIRD_TOPIC]],
      ])['sns:ConfirmSubscription'],
    );
  });

  it('inbox TTL, Postmark IP allowlist, soft-bounce policy, log level and topics reach the handlers that read them', () => {
    expect(env('edge')).toMatchObject({
      INBOX_TTL_DAYS: '45',
      POSTMARK_ALLOWED_IPS: '3.134.147.250,50.31.156.6',
      LOG_LEVEL: 'DEBUG',
      TOPIC_ALIASES: 'sendgrid:group:4242=newsletter,ses:main:weekly=newsletter',
      TOPIC_LABELS: 'newsletter=Weekly newsletter',
    });
    expect(env('consumer')).toMatchObject({
      SOFT_BOUNCE_LIMIT: '3',
      SOFT_BOUNCE_WINDOW_DAYS: '7',
      LOG_LEVEL: 'DEBUG',
      TOPIC_ALIASES: 'sendgrid:group:4242=newsletter,ses:main:weekly=newsletter',
    });
    expect(env('consumer').TOPIC_LABELS).toBeUndefined();
    expect(env('edge').SWEEP_AFTER_SECONDS).toBeUndefined();
  });

  it('inboxPointInTimeRecovery=true turns PITR on for the inbox', () => {
    s.template.hasResourceProperties('AWS::DynamoDB::Table', {
      TableName: 'ratchet-staging-inbox',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
  });

  it('rejectedRequestsAlarmThreshold sets every per-provider rejection alarm', () => {
    const rejected = s.stack.ratchet.alarms.alarms.filter((a) => a.node.id.startsWith('RequestsRejected'));
    expect(rejected.length).toBeGreaterThan(0);
    for (const alarm of rejected) {
      expect((s.template.toJSON().Resources[logicalId(alarm)] as any).Properties.Threshold).toBe(7);
    }
  });

  it('resourcePrefix names every physical resource, so a second stack fits in the same account and region', () => {
    const props = (type: string) => Object.values(s.template.findResources(type)).map((r: any) => r.Properties);
    expect(
      props('AWS::DynamoDB::Table')
        .map((p) => p.TableName)
        .sort(),
    ).toEqual(['ratchet-staging-inbox', 'ratchet-staging-reputation', 'ratchet-staging-suppressions']);
    expect(
      props('AWS::SQS::Queue')
        .map((p) => p.QueueName)
        .sort(),
    ).toEqual([
      'ratchet-staging-events',
      'ratchet-staging-events-dlq',
      'ratchet-staging-reputation-failures',
      'ratchet-staging-ses-dead-letters',
    ]);
    const secretNames = props('AWS::SecretsManager::Secret').map((p) => p.Name);
    expect(secretNames.length).toBeGreaterThan(0);
    for (const name of secretNames) expect(name).toMatch(/^ratchet-staging\/[a-z]+$/);
    // The functions are told the names, never left to the defaults.
    expect(env('edge').INBOX_TABLE).toEqual({ Ref: logicalId(s.stack.ratchet.inboxTable) });
    expect(env('consumer').SUPPRESSION_TABLE).toEqual({ Ref: logicalId(s.stack.ratchet.suppressionTable) });
  });

  it('alarmEmail subscribes that address to the alarm topic', () => {
    s.template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
      TopicArn: { Ref: logicalId(s.stack.ratchet.alarms.topic) },
    });
  });

  it('stage throttling, the SES route limit and the SNS pace, each as given', () => {
    s.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      DefaultRouteSettings: { ThrottlingRateLimit: 20, ThrottlingBurstLimit: 40 },
      RouteSettings: { 'POST /webhooks/ses': { ThrottlingRateLimit: 30, ThrottlingBurstLimit: 60 } },
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
      Topics: [{ Ref: logicalId(s.stack.ratchet.sesTopic) }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          {
            Sid: 'AllowSesPublishFromThisAccount',
            Effect: 'Allow',
            Action: 'sns:Publish',
            Principal: { Service: 'ses.amazonaws.com' },
            Resource: { Ref: logicalId(s.stack.ratchet.sesTopic) },
            Condition: {
              StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
              ArnLike: {
                'aws:SourceArn': {
                  'Fn::Join': [
                    '',
                    [
                      'arn:',
                      { Ref: 'AWS::Partition' },
                      ':ses:',
                      { Ref: 'AWS::Region' },
                      ':',
                      { Ref: 'AWS::AccountId' },
                      ':*',
                    ],
                  ],
                },
              },
            },
          },
        ]),
      },
    });
  });
});

describe('context parsing', () => {
  // A bare root construct: an App would create a temporary output directory each time.
  const config = (context: Record<string, unknown>) => {
    const root = new Construct(undefined as never, '');
    for (const [key, value] of Object.entries(context)) root.node.setContext(key, value);
    return resolveRatchetProps(readConfig(root.node));
  };

  it('defaults', () => {
    expect(config({})).toMatchObject({
      resourcePrefix: 'ratchet',
      alarmEmail: undefined,
      extraTopicArns: [],
      inboxTtlDays: 30,
      inboxPointInTimeRecovery: false,
      providerSettings: {},
      front: 'api-gateway',
      throttleRateLimit: API.throttleRateLimit,
      throttleBurstLimit: API.throttleBurstLimit,
      snsMaxReceivesPerSecond: API.snsMaxReceivesPerSecond,
      sesRouteRateLimit: 2 * API.snsMaxReceivesPerSecond,
      createConfigurationSet: true,
      softBounceLimit: undefined,
      softBounceWindowDays: undefined,
      logLevel: 'INFO',
      rejectedRequestsAlarmThreshold: 25,
      topicAliases: undefined,
      topicLabels: undefined,
    });
  });

  it('the SES route limit follows the SNS pace, and a limit below twice the pace fails the synth (a 429 would lose SES events)', () => {
    expect(config({ snsMaxReceivesPerSecond: '5' })).toMatchObject({
      snsMaxReceivesPerSecond: 5,
      sesRouteRateLimit: 10,
    });
    // Independent of the other providers' limit: a low stage rate no longer slows SNS down.
    expect(config({ throttleRateLimit: 1 })).toMatchObject({ snsMaxReceivesPerSecond: 50, sesRouteRateLimit: 100 });
    expect(() => config({ snsMaxReceivesPerSecond: 50, sesRouteRateLimit: 99 })).toThrow(
      /sesRouteRateLimit \(99\) is below the SNS pace/,
    );
    expect(() => config({ snsMaxReceivesPerSecond: 50, sesRouteRateLimit: 40 })).toThrow(/below the SNS pace/);
    expect(config({ snsMaxReceivesPerSecond: 50, sesRouteRateLimit: 100 }).sesRouteRateLimit).toBe(100);
    expect(() => config({ snsMaxReceivesPerSecond: 50, sesRouteBurstLimit: 49 })).toThrow(/sesRouteBurstLimit/);
    expect(() => config({ throttleRateLimit: 9_000, sesRouteRateLimit: 2_000 })).toThrow(/account quota/);
  });

  it('the Function URL front door: reserved concurrency sized from the SNS pace, never below it', () => {
    const url = { front: 'function-url' };
    expect(config(url).front).toBe('function-url');
    expect(config(url).edgeReservedConcurrency).toBe(50 + 50);
    expect(config({ ...url, snsMaxReceivesPerSecond: 10, throttleRateLimit: 10 }).edgeReservedConcurrency).toBe(10 + 5);
    expect(() => config({ ...url, edgeReservedConcurrency: 49 })).toThrow(/edgeReservedConcurrency \(49\)/);
    expect(() => config({ front: 'alb' })).toThrow(/front must be one of api-gateway, function-url/);
  });

  it('the API Gateway front door: reserved concurrency for what the route limits together can keep busy', () => {
    // (100 stage + 100 SES route + 2 x 20 unsubscribe) requests/s x 0.5 s each.
    expect(config({}).edgeReservedConcurrency).toBe(120);
    expect(config({ throttleRateLimit: 10, snsMaxReceivesPerSecond: 10 }).edgeReservedConcurrency).toBe(35);
    expect(() => config({ edgeReservedConcurrency: 49 })).toThrow(/edgeReservedConcurrency \(49\)/);
  });

  it('concurrencyBudget: 200 by default, a positive whole number', () => {
    expect(config({}).concurrencyBudget).toBe(200);
    expect(config({ concurrencyBudget: '300' }).concurrencyBudget).toBe(300);
    expect(() => config({ concurrencyBudget: 'lots' })).toThrow(/context concurrencyBudget must be a positive number/);
    expect(() => config({ concurrencyBudget: 12.5 })).toThrow(/context concurrencyBudget must be a whole number/);
  });

  it('topic aliases and labels are validated at synth', () => {
    expect(config({ topicAliases: ['a=b', 'sendgrid:group:1=news.letter_2'] }).topicAliases).toBe(
      'a=b,sendgrid:group:1=news.letter_2',
    );
    expect(config({ topicLabels: 'newsletter=Weekly newsletter, product=Product news' }).topicLabels).toBe(
      'newsletter=Weekly newsletter,product=Product news',
    );
    for (const bad of ['a', 'a=', '=b', 'a=b=c', 'a=b c', '-a=b', 'a=' + 'x'.repeat(129), 'a=b,a=c', 'a/b=c']) {
      expect(() => config({ topicAliases: bad }), bad).toThrow(/topicAliases/);
    }
    expect(config({ topicAliases: 'a=b,a=b' }).topicAliases).toBe('a=b,a=b');
    for (const bad of ['x', 'bad topic=Label', 'ok=' + 'y'.repeat(201)]) {
      expect(() => config({ topicLabels: bad }), bad).toThrow(/topicLabels/);
    }
  });

  it('refuses values that do not parse instead of falling back to a default', () => {
    expect(() => config({ inboxTtlDays: 'ninety' })).toThrow(/inboxTtlDays/);
    expect(() => config({ inboxTtlDays: 1.5 })).toThrow(/inboxTtlDays/);
    expect(() => config({ logLevel: 'TRACE' })).toThrow(/logLevel/);
    expect(() => config({ inboxPointInTimeRecovery: 'on' })).toThrow(/inboxPointInTimeRecovery/);
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
      providerSettings: {},
      extraTopicArns: [],
    });
  });

  it('provider settings come from the declarations alone: any provider, no name in lib/', () => {
    const fake: ProviderDefinition = {
      name: 'fake',
      credentialsVariable: 'FAKE_KEYS',
      settings: [
        { variable: 'FAKE_TOLERANCE_SECONDS', contextKey: 'fakeToleranceSeconds', describe: 'a window' },
        { variable: 'FAKE_LIST', contextKey: 'fakeList', describe: 'a list' },
        { variable: 'FAKE_LOCAL_ONLY', describe: 'no context key: never deployed' },
      ],
      create: () => {
        throw new Error('unused');
      },
    };
    const context: Record<string, unknown> = {
      fakeToleranceSeconds: ' 90 ',
      fakeList: ['a', ' ', 'b'],
      FAKE_LOCAL_ONLY: 'x',
    };
    expect(providerSettingsFromContext((key) => context[key], [fake])).toEqual({
      FAKE_TOLERANCE_SECONDS: '90',
      FAKE_LIST: 'a,b',
    });
    expect(() => providerSettingsFromContext(() => [1], [fake])).toThrow(/context fakeToleranceSeconds/);
  });
});
