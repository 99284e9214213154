/** Least privilege: exact actions on exact resources, granted by the constructs that own them. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDERS } from '../../lambdas/core/providers/index.js';
import {
  expectedGrants,
  grants,
  logicalId,
  render,
  resources,
  roleStatements,
  type Synthesized,
  synthesizeTemplate,
} from './helpers.js';

let s: Synthesized;
beforeAll(() => {
  s = synthesizeTemplate();
}, 180_000);
afterAll(() => s?.cleanup());

const SQS_CONSUME = [
  'sqs:ChangeMessageVisibility',
  'sqs:DeleteMessage',
  'sqs:GetQueueAttributes',
  'sqs:GetQueueUrl',
  'sqs:ReceiveMessage',
];
const LOG_WRITE = ['logs:CreateLogStream', 'logs:PutLogEvents'];

describe('least-privilege IAM', () => {
  it('roles carry no managed policies and no inline policies of their own', () => {
    for (const handler of [s.stack.ratchet.edge, s.stack.ratchet.consumer]) {
      const role = resources(s)[logicalId(handler.role)]!.Properties;
      expect(role.ManagedPolicyArns).toBeUndefined();
      expect(role.Policies).toBeUndefined();
      expect(role.AssumeRolePolicyDocument.Statement).toEqual([
        { Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' } },
      ]);
    }
  });

  it('no statement is on "*", none is a Deny or conditional, none uses a wildcard action', () => {
    for (const handler of [s.stack.ratchet.edge, s.stack.ratchet.consumer]) {
      const statements = roleStatements(s.template, handler);
      expect(statements.length).toBeGreaterThan(0);
      for (const st of statements) {
        expect(st.Effect).toBe('Allow');
        expect(st.Condition).toBeUndefined();
        expect(st.Resource).not.toContain('*');
        for (const r of st.Resource) expect(render(r)).not.toMatch(/(^|:)\*$/);
        for (const a of st.Action) expect(a).not.toContain('*');
      }
    }
  });

  it('edge: Put/Get on the inbox (never Update), SendMessage on the queue, ConfirmSubscription on the topic, GetSecretValue on exactly the provider secrets and the unsubscribe key', () => {
    const { stack } = s;
    expect(grants(roleStatements(s.template, stack.ratchet.edge))).toEqual(
      expectedGrants(stack, [
        [['dynamodb:PutItem', 'dynamodb:GetItem'], [stack.ratchet.inboxTable.tableArn]],
        [['sqs:SendMessage'], [stack.ratchet.queue.queueArn]],
        [['sns:ConfirmSubscription'], [stack.ratchet.sesTopic.topicArn]],
        [
          ['secretsmanager:GetSecretValue'],
          [...stack.ratchet.secrets.byProvider.values(), stack.ratchet.secrets.unsubscribe].map((x) => x.secretArn),
        ],
        [LOG_WRITE, [stack.ratchet.edge.logGroup.logGroupArn]],
      ]),
    );
    expect(stack.ratchet.secrets.byProvider.size).toBe(PROVIDERS.filter((p) => p.secretArnVariable).length);
    const text = JSON.stringify(roleStatements(s.template, stack.ratchet.edge));
    expect(text).not.toContain(logicalId(stack.ratchet.suppressionTable));
    expect(text).not.toContain(logicalId(stack.ratchet.sesDeadLetterQueue));
  });

  it('consumer: Get/Put on the suppression table, nothing on the inbox (it applies from the message), SQS consume on the queue; no secrets', () => {
    const { stack } = s;
    expect(grants(roleStatements(s.template, stack.ratchet.consumer))).toEqual(
      expectedGrants(stack, [
        [['dynamodb:GetItem', 'dynamodb:PutItem'], [stack.ratchet.suppressionTable.tableArn]],
        [SQS_CONSUME, [stack.ratchet.queue.queueArn]],
        [LOG_WRITE, [stack.ratchet.consumer.logGroup.logGroupArn]],
      ]),
    );
  });
});
