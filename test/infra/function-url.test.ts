/** The Function URL front door (context `front=function-url`): same outputs, same routes on the edge. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDERS } from '../../lambdas/core/providers/index.js';
import { API, FUNCTION_URL } from '../../lib/definitions.js';
import { pascal } from '../../lib/stack.js';
import { functionLogicalId, logicalId, render, resources, type Synthesized, synthesizeTemplate } from './helpers.js';

let s: Synthesized;
beforeAll(() => {
  s = synthesizeTemplate({ front: 'function-url' });
}, 180_000);
afterAll(() => s?.cleanup());

const urlId = () => Object.keys(s.template.findResources('AWS::Lambda::Url'))[0]!;
const host = () => `{Fn::Select:2:{Fn::Split:/:{GetAtt:${urlId()}.FunctionUrl}}}`;
/** render() does not know Select/Split: spell them out the same way. */
function text(value: unknown): string {
  const v = value as Record<string, any>;
  if (v && v['Fn::Select']) {
    const [index, split] = v['Fn::Select'];
    const [sep, source] = split['Fn::Split'];
    return `{Fn::Select:${index}:{Fn::Split:${sep}:${render(source)}}}`;
  }
  if (v && v['Fn::Join']) return (v['Fn::Join'][1] as unknown[]).map(text).join(v['Fn::Join'][0]);
  return render(value);
}

describe('Function URL front door', () => {
  it('no API Gateway at all; one Function URL on the edge, auth NONE (the edge verifies every request)', () => {
    for (const type of [
      'AWS::ApiGatewayV2::Api',
      'AWS::ApiGatewayV2::Stage',
      'AWS::ApiGatewayV2::Route',
      'AWS::ApiGatewayV2::Deployment',
    ]) {
      s.template.resourceCountIs(type, 0);
    }
    s.template.resourceCountIs('AWS::Lambda::Url', 1);
    expect(resources(s)[urlId()]!.Properties).toEqual({
      AuthType: 'NONE',
      TargetFunctionArn: { 'Fn::GetAtt': [functionLogicalId(s.stack.ratchet.edge), 'Arn'] },
    });
    s.template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunctionUrl',
      FunctionUrlAuthType: 'NONE',
      Principal: '*',
    });
    // Since October 2025 a new function URL also needs InvokeFunction, limited to calls through the URL.
    s.template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      InvokedViaFunctionUrl: true,
      Principal: '*',
    });
  });

  it("the edge's reserved concurrency is the throttle, with room for twice the SNS pace", () => {
    const reserved = resources(s)[functionLogicalId(s.stack.ratchet.edge)]!.Properties
      .ReservedConcurrentExecutions as number;
    expect(reserved).toBe(s.stack.ratchet.config.edgeReservedConcurrency);
    expect(reserved).toBeGreaterThanOrEqual(
      Math.ceil(API.snsMaxReceivesPerSecond * FUNCTION_URL.secondsPerRequest * 2),
    );
    expect(
      resources(s)[functionLogicalId(s.stack.ratchet.consumer)]!.Properties.ReservedConcurrentExecutions,
    ).toBeUndefined();
  });

  it('the Function URL has exactly its two public invoke permissions (the SES subscription over it: ses-feed.test.ts)', () => {
    // The third: EventBridge invoking the reputation evaluator (reputation.test.ts).
    const permissions = Object.values(s.template.findResources('AWS::Lambda::Permission')).map((p) => p.Properties);
    expect(permissions.filter((p) => p.Principal !== 'events.amazonaws.com')).toHaveLength(2);
    expect(permissions).toHaveLength(3);
  });

  it('outputs keep their names and shapes', () => {
    const outputs = s.template.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(text(outputs.ApiUrl!.Value)).toBe(`https://${host()}/`);
    expect(text(outputs.UnsubscribeBaseUrl!.Value)).toBe(`https://${host()}`);
    for (const p of PROVIDERS) {
      expect(text(outputs[`WebhookUrl${pascal(p.name)}`]!.Value), p.name).toBe(`https://${host()}/webhooks/${p.name}`);
    }
  });

  it('the edge is not told its own URL (that would be a dependency cycle); 429s are its Lambda throttles; 5xx its URL 5xx', () => {
    const env = resources(s)[functionLogicalId(s.stack.ratchet.edge)]!.Properties.Environment.Variables;
    expect(env.UNSUBSCRIBE_BASE_URL).toBeUndefined();
    const alarms = Object.fromEntries(
      s.stack.ratchet.alarms.alarms.map((a) => [a.node.id, resources(s)[logicalId(a)]!.Properties]),
    );
    expect(alarms.FrontDoorThrottled).toMatchObject({ Namespace: 'AWS/Lambda', MetricName: 'Throttles' });
    expect(alarms.EdgeServerErrors).toMatchObject({ Namespace: 'AWS/Lambda', MetricName: 'Url5xxCount' });
  });
});
