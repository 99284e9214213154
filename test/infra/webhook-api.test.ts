/** The API Gateway front door (the default): routes, per-route throttles, explicit deployment, access log. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../lib/constructs/front-door.js';
import { API } from '../../lib/definitions.js';
import { functionLogicalId, logicalId, resources, type Synthesized, synthesizeTemplate } from './helpers.js';

let s: Synthesized;
beforeAll(() => {
  s = synthesizeTemplate();
}, 180_000);
afterAll(() => s?.cleanup());

const stageProps = () => Object.values(s.template.findResources('AWS::ApiGatewayV2::Stage'))[0]!.Properties;
const routes = () =>
  Object.fromEntries(
    Object.entries(s.template.findResources('AWS::ApiGatewayV2::Route')).map(([id, r]) => [
      r.Properties.RouteKey as string,
      { id, ...r.Properties },
    ]),
  );

describe('HTTP API', () => {
  it('is one HTTP API with one $default stage that does not auto-deploy', () => {
    s.template.resourceCountIs('AWS::ApiGatewayV2::Api', 1);
    s.template.hasResourceProperties('AWS::ApiGatewayV2::Api', { ProtocolType: 'HTTP' });
    s.template.resourceCountIs('AWS::ApiGatewayV2::Stage', 1);
    expect(stageProps()).toMatchObject({
      ApiId: { Ref: logicalId(s.stack.ratchet.webhookApi!.api) },
      StageName: '$default',
      AutoDeploy: false,
      DefaultRouteSettings: {
        ThrottlingRateLimit: API.throttleRateLimit,
        ThrottlingBurstLimit: API.throttleBurstLimit,
      },
    });
  });

  it('routes the webhooks, SES and both unsubscribe methods to the edge Lambda with payload format 2.0', () => {
    expect(Object.keys(routes()).sort()).toEqual(Object.values(ROUTES).sort());
    expect(Object.values(ROUTES)).toEqual([
      'POST /webhooks/{provider}',
      'POST /webhooks/ses',
      'GET /unsubscribe/{token}',
      'POST /unsubscribe/{token}',
    ]);
    const integrationIds = new Set(Object.values(routes()).map((r: any) => r.Target['Fn::Join'][1][1].Ref as string));
    expect(integrationIds.size).toBe(1);
    const integration = resources(s)[[...integrationIds][0]!]!;
    expect(integration.Type).toBe('AWS::ApiGatewayV2::Integration');
    expect(integration.Properties).toMatchObject({
      IntegrationType: 'AWS_PROXY',
      PayloadFormatVersion: '2.0',
      IntegrationUri: { 'Fn::GetAtt': [functionLogicalId(s.stack.ratchet.edge), 'Arn'] },
    });
    const permissions = s.template.findResources('AWS::Lambda::Permission', {
      Properties: { Principal: 'apigateway.amazonaws.com' },
    });
    expect(Object.keys(permissions)).toHaveLength(4);
    for (const p of Object.values(permissions)) {
      expect(p.Properties.FunctionName).toEqual({ 'Fn::GetAtt': [functionLogicalId(s.stack.ratchet.edge), 'Arn'] });
    }
  });

  it('SES and each unsubscribe route have their own throttle; SES sits at least twice above the SNS pace', () => {
    const settings = stageProps().RouteSettings as Record<
      string,
      { ThrottlingRateLimit: number; ThrottlingBurstLimit: number }
    >;
    expect(Object.keys(settings).sort()).toEqual([ROUTES.unsubscribeGet, ROUTES.unsubscribePost, ROUTES.ses].sort());
    // The pace an HTTPS subscription keeps (sesFeed=https; ses-feed.test.ts reads it from the subscription).
    const pace = s.stack.ratchet.config.snsMaxReceivesPerSecond;
    expect(pace).toBe(API.snsMaxReceivesPerSecond);
    expect(settings[ROUTES.ses]!.ThrottlingRateLimit).toBeGreaterThanOrEqual(2 * pace);
    expect(settings[ROUTES.ses]!.ThrottlingBurstLimit).toBeGreaterThanOrEqual(
      settings[ROUTES.ses]!.ThrottlingRateLimit,
    );
    for (const key of [ROUTES.unsubscribeGet, ROUTES.unsubscribePost]) {
      expect(settings[key]).toEqual({
        ThrottlingRateLimit: API.unsubscribeRateLimit,
        ThrottlingBurstLimit: API.unsubscribeBurstLimit,
      });
    }
    // `{provider}` has no entry: it gets the stage default, a bucket of its own.
    expect(settings[ROUTES.webhooks]).toBeUndefined();
    // Every route's limit together stays under the account quota, the one bucket routes share.
    const total = API.throttleRateLimit + Object.values(settings).reduce((sum, x) => sum + x.ThrottlingRateLimit, 0);
    expect(total).toBeLessThanOrEqual(API.accountRateLimit);
  });

  it('an explicit deployment that depends on every route is what the stage serves', () => {
    const deployments = s.template.findResources('AWS::ApiGatewayV2::Deployment');
    expect(Object.keys(deployments)).toHaveLength(1);
    const [deploymentId, deployment] = Object.entries(deployments)[0]!;
    expect(deployment.Properties.ApiId).toEqual({ Ref: logicalId(s.stack.ratchet.webhookApi!.api) });
    expect(deployment.DependsOn).toEqual(expect.arrayContaining(Object.values(routes()).map((r: any) => r.id)));
    expect(stageProps().DeploymentId).toEqual({ Ref: deploymentId });
  });

  it('access log: JSON to its own log group with the retention, no path (it carries unsubscribe tokens), and a 429 metric filter', () => {
    const logs = stageProps().AccessLogSettings;
    expect(logs.DestinationArn).toEqual({ 'Fn::GetAtt': [logicalId(s.stack.ratchet.webhookApi!.accessLogs), 'Arn'] });
    const format = JSON.parse(logs.Format);
    expect(format).toMatchObject({
      requestId: '$context.requestId',
      routeKey: '$context.routeKey',
      status: '$context.status',
    });
    expect(logs.Format).not.toMatch(/\$context\.(path|http\.path|rawPath)/);
    expect(resources(s)[logicalId(s.stack.ratchet.webhookApi!.accessLogs)]!.Properties.RetentionInDays).toBe(30);
    s.template.hasResourceProperties('AWS::Logs::MetricFilter', {
      LogGroupName: { Ref: logicalId(s.stack.ratchet.webhookApi!.accessLogs) },
      FilterPattern: '{ $.status = 429 }',
      MetricTransformations: [{ MetricNamespace: 'Ratchet', MetricName: 'ApiThrottled', MetricValue: '1' }],
    });
  });

  it('no Function URL', () => {
    s.template.resourceCountIs('AWS::Lambda::Url', 0);
  });
});
