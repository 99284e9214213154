/**
 * `reuseRetained=true`: after `cdk destroy`, the suppression table and the secrets (retained, with fixed
 * names) are used by name instead of created, so the next deploy does not fail on names that exist.
 * Grants, environment and outputs stay the same. Also the context values this feature added.
 */
import { App } from 'aws-cdk-lib';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDERS } from '../../lambdas/core/providers/index.js';
import { RatchetStack } from '../../lib/stack.js';
import {
  functionLogicalId,
  grants,
  NO_BUNDLING,
  render,
  resources,
  roleStatements,
  type Synthesized,
  synthesizeTemplate,
} from './helpers.js';

let reused: Synthesized;
let created: Synthesized;
beforeAll(() => {
  reused = synthesizeTemplate({ reuseRetained: 'true' });
  created = synthesizeTemplate();
}, 180_000);
afterAll(() => {
  reused?.cleanup();
  created?.cleanup();
});

const withSecret = PROVIDERS.filter((p) => p.secretArnVariable && p.name !== 'unsubscribe');
const env = (s: Synthesized, handler: 'edge' | 'consumer') =>
  resources(s)[functionLogicalId(s.stack.ratchet[handler])]!.Properties.Environment.Variables;
const secretArn = (name: string) => `arn:{AWS::Partition}:secretsmanager:{AWS::Region}:{AWS::AccountId}:secret:${name}`;

describe('reuseRetained=true', () => {
  it('creates no suppression table and no secret; the inbox table is still created', () => {
    reused.template.resourceCountIs('AWS::SecretsManager::Secret', 0);
    const tables = Object.values(reused.template.findResources('AWS::DynamoDB::Table')).map(
      (t) => t.Properties.TableName,
    );
    expect(tables).toEqual(['ratchet-inbox', 'ratchet-reputation']);
    // The test can fail: the default stack creates both.
    created.template.resourceCountIs('AWS::SecretsManager::Secret', withSecret.length + 1);
  });

  it('the edge gets the same variables, pointing at the retained secrets by name', () => {
    const edge = env(reused, 'edge');
    expect(Object.keys(edge).sort()).toEqual(Object.keys(env(created, 'edge')).sort());
    for (const p of withSecret) expect(render(edge[p.secretArnVariable!]), p.name).toBe(secretArn(`ratchet/${p.name}`));
    expect(render(edge.UNSUBSCRIBE_SECRET_ARN)).toBe(secretArn('ratchet/unsubscribe'));
    // The SES feed verifies SES only, which has no secret: it is told none (least privilege).
    const feed = resources(reused)[functionLogicalId(reused.stack.ratchet.feed!)]!.Properties.Environment.Variables;
    expect(Object.keys(feed).filter((name) => name.endsWith('_SECRET_ARN'))).toEqual([]);
  });

  it('the consumer gets the retained table by name, with the same grant', () => {
    expect(env(reused, 'consumer').SUPPRESSION_TABLE).toBe('ratchet-suppressions');
    const consumer = grants(roleStatements(reused.template, reused.stack.ratchet.consumer));
    expect(consumer['dynamodb:GetItem']!.map((x) => render(JSON.parse(x)))).toEqual([
      'arn:{AWS::Partition}:dynamodb:{AWS::Region}:{AWS::AccountId}:table/ratchet-suppressions',
    ]);
    expect(Object.keys(consumer).sort()).toEqual(
      Object.keys(grants(roleStatements(created.template, created.stack.ratchet.consumer))).sort(),
    );
  });

  it('the edge may read exactly those secrets, whatever the random suffix Secrets Manager gave them', () => {
    const read = grants(roleStatements(reused.template, reused.stack.ratchet.edge))[
      'secretsmanager:GetSecretValue'
    ]!.map((x) => render(JSON.parse(x)));
    expect(read.sort()).toEqual(
      [...withSecret.map((p) => `ratchet/${p.name}`), 'ratchet/unsubscribe']
        .map((n) => `${secretArn(n)}-??????`)
        .sort(),
    );
  });

  it('outputs: the same names, the table and secrets by name', () => {
    const outputs = reused.template.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(Object.keys(outputs).sort()).toEqual(Object.keys(created.template.toJSON().Outputs).sort());
    expect(outputs.SuppressionTableName!.Value).toBe('ratchet-suppressions');
    expect(render(outputs.UnsubscribeSecretArn!.Value)).toBe(secretArn('ratchet/unsubscribe'));
  });
});

describe('context values of the SES feed and the deploy lifecycle', () => {
  const stack = (context: Record<string, unknown>) =>
    new RatchetStack(new App({ context: { ...NO_BUNDLING, ...context } }), 'RatchetContextTest');

  it('sesFeed is sqs or https, anything else is refused by name', () => {
    expect(stack({}).ratchet.config.sesFeed).toBe('sqs');
    expect(stack({ sesFeed: ' https ' }).ratchet.config.sesFeed).toBe('https');
    expect(() => stack({ sesFeed: 'lambda' })).toThrow('context sesFeed must be one of sqs, https, got "lambda"');
  });

  it('reuseRetained is true or false', () => {
    expect(stack({}).ratchet.config.reuseRetained).toBe(false);
    expect(() => stack({ reuseRetained: 'yes' })).toThrow('context reuseRetained must be true or false, got "yes"');
  });

  it('snsMaxAgeSeconds reaches the edge as SNS_MAX_AGE_SECONDS; unset, the runtime default applies', () => {
    const given = stack({ snsMaxAgeSeconds: '7200' });
    const edgeEnv = (s: RatchetStack) =>
      s.resolve((s.ratchet.edge.function.node.defaultChild as CfnFunction).environment).variables;
    expect(edgeEnv(given).SNS_MAX_AGE_SECONDS).toBe('7200');
    expect(edgeEnv(stack({})).SNS_MAX_AGE_SECONDS).toBeUndefined();
  });

  it.each([
    [30 * 86_400, 30],
    [2 * 86_400, 2],
    [3 * 86_400, 2],
  ])('refuses snsMaxAgeSeconds=%d at or above an inbox TTL of %d days', (maxAge, ttl) => {
    expect(() => stack({ snsMaxAgeSeconds: String(maxAge), inboxTtlDays: ttl })).toThrow(
      new RegExp(
        `context snsMaxAgeSeconds \\(SNS_MAX_AGE_SECONDS, ${maxAge}\\) must be below the inbox TTL \\(context inboxTtlDays: ${ttl} days`,
      ),
    );
  });
});
