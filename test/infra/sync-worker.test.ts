/**
 * Sync on AWS: the worker, its queue and dead letters, the sweeper's schedule, the index, the secrets,
 * least-privilege IAM (the SES suppression actions on the worker's role only), the alarm, the
 * dashboard row; and none of it when `syncProviders` is unset.
 */

import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SES_SYNC_ACTIONS } from '../../lib/constructs/sync-worker.js';
import { SYNC_QUEUE, SYNC_WORKER } from '../../lib/sync-definitions.js';
import {
  expectedGrants,
  functionLogicalId,
  grants,
  logicalId,
  NO_BUNDLING,
  resources,
  roleStatements,
  type Synthesized,
  synthesize,
  synthesizeTemplate,
} from './helpers.js';

const ALL = {
  syncProviders: 'ses,sendgrid,postmark,mailgun,resend',
  mailgunDomains: 'mg.example.com,news.example.com',
  postmarkStreams: 'outbound,broadcast',
  topicAliases: 'sendgrid:group:7=newsletter,postmark:stream:broadcast=newsletter',
};

describe('sync resources, with every provider', () => {
  let s: Synthesized;
  beforeAll(() => {
    s = synthesizeTemplate(ALL);
  });
  afterAll(() => s.cleanup());

  it('the sync queue and its dead letters, named by the prefix', () => {
    s.template.hasResourceProperties('AWS::SQS::Queue', {
      QueueName: 'ratchet-sync',
      RedrivePolicy: Match.objectLike({ maxReceiveCount: SYNC_QUEUE.maxReceiveCount }),
    });
    s.template.hasResourceProperties('AWS::SQS::Queue', { QueueName: 'ratchet-sync-dead-letters' });
  });

  it('the worker consumes it with partial batch failures and bounded concurrency', () => {
    const worker = s.stack.ratchet.sync!.worker;
    s.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: s.stack.getLogicalId(worker.function.node.defaultChild as never) },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: SYNC_WORKER.maxConcurrency },
      BatchSize: 50,
      // Lambda refuses a batch over 10 from a standard queue without a batching window.
      MaximumBatchingWindowInSeconds: 1,
    });
  });

  it("the queue hides a received message for at least 6 times the worker's timeout plus the batching window (AWS's advice for a Lambda event source)", () => {
    const worker = s.stack.ratchet.sync!.worker;
    const fn = resources(s)[s.stack.getLogicalId(worker.function.node.defaultChild as never)]!.Properties;
    expect(fn.Timeout).toBe(SYNC_WORKER.timeoutSeconds);
    s.template.hasResourceProperties('AWS::SQS::Queue', {
      QueueName: 'ratchet-sync',
      VisibilityTimeout: SYNC_QUEUE.visibilityTimeoutSeconds,
    });
    const workerId = s.stack.getLogicalId(worker.function.node.defaultChild as never);
    const mapping = Object.values(resources(s)).find(
      (r) =>
        r.Type === 'AWS::Lambda::EventSourceMapping' &&
        (r.Properties.FunctionName as { Ref?: string } | undefined)?.Ref === workerId,
    )!;
    expect(SYNC_QUEUE.visibilityTimeoutSeconds).toBeGreaterThanOrEqual(
      6 * (fn.Timeout as number) + (mapping.Properties.MaximumBatchingWindowInSeconds as number),
    );
  });

  it('the outputs give the CLI the sync queues and the providers (SyncProviders, for SYNC_PROVIDERS)', () => {
    const outputs = s.template.toJSON().Outputs as Record<string, { Value: unknown; Description?: string }>;
    expect(outputs.SyncProviders).toEqual({
      Value: 'ses,sendgrid,postmark,mailgun,resend',
      Description: expect.stringMatching(/^SYNC_PROVIDERS: /),
    });
    expect(outputs.SyncQueueUrl).toBeDefined();
    expect(outputs.SyncDeadLetterQueueUrl).toBeDefined();
  });

  it('the sweeper runs every minute', () => {
    s.template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(1 minute)', State: 'ENABLED' });
  });

  it('the suppression table has the sparse sync-due index', () => {
    s.template.hasResourceProperties('AWS::DynamoDB::Table', {
      GlobalSecondaryIndexes: [
        Match.objectLike({
          IndexName: 'sync-due',
          KeySchema: [
            { AttributeName: 'syncPending', KeyType: 'HASH' },
            { AttributeName: 'syncDue', KeyType: 'RANGE' },
          ],
        }),
      ],
    });
  });

  it('one secret per configured provider other than SES, <prefix>/sync/<provider>', () => {
    const names = Object.values(resources(s))
      .filter((r) => r.Type === 'AWS::SecretsManager::Secret')
      .map((r) => r.Properties.Name as string)
      .filter((n) => n.includes('/sync/'))
      .sort();
    expect(names).toEqual([
      'ratchet/sync/mailgun',
      'ratchet/sync/postmark',
      'ratchet/sync/resend',
      'ratchet/sync/sendgrid',
    ]);
  });

  it('IAM: the worker has exactly its grants, the SES actions included', () => {
    const sync = s.stack.ratchet.sync!;
    const { tables } = s.stack.ratchet;
    expect(grants(roleStatements(s.template, sync.worker))).toEqual(
      expectedGrants(s.stack, [
        [
          ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
          [tables.suppressions.tableArn, tables.inbox.tableArn],
        ],
        [['dynamodb:BatchGetItem'], [tables.suppressions.tableArn]],
        [['sqs:ChangeMessageVisibility'], [sync.queue.queueArn]],
        [
          ['sqs:ReceiveMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:DeleteMessage'],
          [sync.queue.queueArn],
        ],
        [['sqs:SendMessage'], [sync.deadLetterQueue.queueArn, sync.queue.queueArn]],
        [['secretsmanager:GetSecretValue'], [...sync.secrets.values()].map((x) => x.secretArn)],
        [[...SES_SYNC_ACTIONS], ['*']],
        [['logs:CreateLogStream', 'logs:PutLogEvents'], [sync.worker.logGroup.logGroupArn]],
      ]),
    );
  });

  it('IAM: no other role has any SES suppression action, or any ses: action beyond those four', () => {
    const workerRole = s.stack.getLogicalId(s.stack.ratchet.sync!.worker.role.node.defaultChild as never);
    for (const policy of Object.values(resources(s)).filter((r) => r.Type === 'AWS::IAM::Policy')) {
      const actions = (policy.Properties.PolicyDocument.Statement as Array<{ Action: string | string[] }>).flatMap(
        (st) => [st.Action].flat(),
      );
      const ses = actions.filter((a) => a.startsWith('ses:'));
      if (ses.length === 0) continue;
      expect(policy.Properties.Roles).toEqual([{ Ref: workerRole }]);
      expect(ses.sort()).toEqual([...SES_SYNC_ACTIONS].sort());
    }
  });

  it('the sweeper may query the index, move a marker, scan the table for the backfill (it does), keep its checkpoint row, and send to the sync queue, nothing else', () => {
    const sync = s.stack.ratchet.sync!;
    const { suppressions: table, inbox } = s.stack.ratchet.tables;
    expect(grants(roleStatements(s.template, sync.sweeper))).toEqual(
      expectedGrants(s.stack, [
        [['dynamodb:Query'], [`${table.tableArn}/index/sync-due`]],
        [['dynamodb:UpdateItem'], [table.tableArn, inbox.tableArn]],
        [['dynamodb:GetItem'], [inbox.tableArn]],
        // The backfill's walk (DynamoSuppressionSync.scanRecords): the base table only, never an index.
        [['dynamodb:Scan'], [table.tableArn]],
        [['sqs:SendMessage', 'sqs:GetQueueAttributes'], [sync.queue.queueArn]],
        [['logs:CreateLogStream', 'logs:PutLogEvents'], [sync.sweeper.logGroup.logGroupArn]],
      ]),
    );
  });

  it.each(['worker', 'sweeper'] as const)(
    "IAM: the %s's inbox grant is limited to the sync#<provider> rows (dynamodb:LeadingKeys)",
    (name) => {
      const sync = s.stack.ratchet.sync!;
      const inboxArn = JSON.stringify(s.stack.resolve(s.stack.ratchet.tables.inbox.tableArn));
      const onInbox = roleStatements(s.template, sync[name]).filter((st) =>
        st.Resource.some((r) => JSON.stringify(r) === inboxArn),
      );
      expect(onInbox).toHaveLength(1);
      expect(onInbox[0]).toEqual({
        Effect: 'Allow',
        Action: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
        Resource: [JSON.parse(inboxArn)],
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['sync#*'] } },
      });
    },
  );

  it('the consumer may send the fast path, and knows the providers and the queue', () => {
    const consumer = s.stack.ratchet.consumer;
    expect(grants(roleStatements(s.template, consumer))['sqs:SendMessage']).toEqual([
      JSON.stringify(s.stack.resolve(s.stack.ratchet.sync!.queue.queueArn)),
    ]);
    s.template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('consumer'),
      Environment: {
        Variables: Match.objectLike({ SYNC_PROVIDERS: ALL.syncProviders, SYNC_QUEUE_URL: Match.anyValue() }),
      },
    });
  });

  it('the worker gets the settings and the secret ARNs, never a key', () => {
    s.template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('sync worker'),
      Environment: {
        Variables: Match.objectLike({
          SYNC_PROVIDERS: ALL.syncProviders,
          MAILGUN_DOMAINS: ALL.mailgunDomains,
          POSTMARK_STREAMS: ALL.postmarkStreams,
          SYNC_SENDGRID_SECRET_ARN: Match.anyValue(),
          SYNC_DEAD_LETTER_QUEUE_URL: Match.anyValue(),
        }),
      },
    });
  });

  it('the worker and the sweeper both get TOPIC_ALIASES: the sweeper walks the table again when they change', () => {
    for (const description of ['sync worker', 'sync sweeper'])
      s.template.hasResourceProperties('AWS::Lambda::Function', {
        Description: Match.stringLikeRegexp(description),
        Environment: { Variables: Match.objectLike({ TOPIC_ALIASES: ALL.topicAliases }) },
      });
  });

  it('an alarm on the sync dead letters', () => {
    s.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [
        {
          Name: 'QueueName',
          Value: {
            'Fn::GetAtt': [
              s.stack.getLogicalId(s.stack.ratchet.sync!.deadLetterQueue.node.defaultChild as never),
              'QueueName',
            ],
          },
        },
      ],
      Threshold: 1,
    });
  });

  it('a crash or timeout of the worker or the sweeper alarms, as for every other Lambda', () => {
    // A sweeper that throws every minute stops the backfill and every lost message, and nothing else alarms on it.
    const sync = s.stack.ratchet.sync!;
    const byId = Object.fromEntries(s.stack.ratchet.alarms.alarms.map((a) => [a.node.id, a]));
    for (const [id, handler] of [
      ['SyncWorkerFunctionErrors', sync.worker],
      ['SyncSweeperFunctionErrors', sync.sweeper],
    ] as const) {
      expect(byId[id], id).toBeDefined();
      expect(resources(s)[logicalId(byId[id]!)]!.Properties, id).toMatchObject({
        Namespace: 'AWS/Lambda',
        MetricName: 'Errors',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionLogicalId(handler) } }],
        Statistic: 'Sum',
        Threshold: 1,
        AlarmActions: [{ Ref: logicalId(s.stack.ratchet.alarms.topic) }],
      });
    }
  });

  it('a dashboard row with SyncPushed and SyncFailed by provider', () => {
    const body = JSON.stringify(
      s.stack.resolve(
        Object.values(resources(s)).find((r) => r.Type === 'AWS::CloudWatch::Dashboard')!.Properties.DashboardBody,
      ),
    );
    for (const metric of ['SyncPushed', 'SyncFailed'])
      for (const provider of ['ses', 'resend']) expect(body).toMatch(new RegExp(`${metric}.{0,80}${provider}`));
  });
});

describe('sync resources, with SES only', () => {
  it('no secret, and the SES actions on the worker', () => {
    const s = synthesizeTemplate({ syncProviders: 'ses' });
    try {
      expect(
        Object.values(resources(s)).filter(
          (r) => r.Type === 'AWS::SecretsManager::Secret' && String(r.Properties.Name).includes('/sync/'),
        ),
      ).toEqual([]);
      expect(grants(roleStatements(s.template, s.stack.ratchet.sync!.worker))['ses:PutSuppressedDestination']).toEqual([
        '"*"',
      ]);
      expect(s.template.toJSON().Outputs.SyncProviders.Value).toBe('ses');
    } finally {
      s.cleanup();
    }
  });
});

describe('sync on a retained table (reuseRetained)', () => {
  it('warns at synth that CDK cannot add the sync-due index to it, naming the command that does', () => {
    // A table retained from a stack without sync has no index, and the sweeper would wait for it forever.
    const s = synthesize({ ...NO_BUNDLING, reuseRetained: 'true', syncProviders: 'ses' });
    try {
      const warnings = Annotations.fromStack(s.stack).findWarning('*', Match.stringLikeRegexp('sync-due'));
      expect(warnings).toHaveLength(1);
      expect(String(warnings[0]!.entry.data)).toMatch(/aws dynamodb update-table --table-name ratchet-suppressions/);
      // Without sync, or on a table the stack creates, nothing to say.
      for (const context of [{ reuseRetained: 'true' }, { syncProviders: 'ses' }]) {
        const other = synthesize({ ...NO_BUNDLING, ...context });
        expect(Annotations.fromStack(other.stack).findWarning('*', Match.anyValue())).toEqual([]);
        other.cleanup();
      }
    } finally {
      s.cleanup();
    }
  });
});

describe('no sync resources when syncProviders is unset', () => {
  it('no queue, function, schedule, index, secret or SES grant', () => {
    const s = synthesizeTemplate();
    try {
      const all = Object.values(resources(s));
      expect(s.stack.ratchet.sync).toBeUndefined();
      expect(all.filter((r) => r.Type === 'AWS::SQS::Queue').map((r) => r.Properties.QueueName)).not.toContain(
        'ratchet-sync',
      );
      // The reputation evaluator's 5-minute rule is the only schedule without sync.
      expect(
        all
          .filter((r) => r.Type === 'AWS::Events::Rule')
          .map((r) => (r.Properties as { ScheduleExpression?: string }).ScheduleExpression),
      ).toEqual(['rate(5 minutes)']);
      expect(JSON.stringify(all)).not.toMatch(/sync-due|\/sync\/|ses:PutSuppressedDestination|SYNC_PROVIDERS/);
      // Sync off: no output the CLI could take for a provider list.
      expect(Object.keys(s.template.toJSON().Outputs).filter((o) => o.startsWith('Sync'))).toEqual([]);
    } finally {
      s.cleanup();
    }
  });
});

describe('cdk synth refuses a sync setting that is missing or wrong, with one line naming it', () => {
  it.each([
    [
      { syncProviders: 'mailgun' },
      'SYNC_PROVIDERS includes mailgun but context mailgunDomains (MAILGUN_DOMAINS) is not set',
    ],
    [
      { syncProviders: 'ses,sparkpost' },
      'context syncProviders: "sparkpost" is not one of ses, sendgrid, postmark, mailgun, resend',
    ],
    [
      { syncProviders: 'mailgun', mailgunDomains: 'not a domain' },
      'context mailgunDomains (MAILGUN_DOMAINS) includes "not a domain", which is not a domain name',
    ],
  ])('%j', (context, message) => {
    expect(() => synthesizeTemplate(context)).toThrow(message);
  });
});

describe('cdk-nag with sync on', () => {
  it('reports nothing unacknowledged, and each acknowledgement is on its own resource', async () => {
    const { App, Validations } = await import('aws-cdk-lib');
    const { AwsSolutionsChecks, ServerlessChecks } = await import('cdk-nag');
    const { RatchetStack } = await import('../../lib/stack.js');
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const outdir = mkdtempSync(join(tmpdir(), 'ratchet-nag-sync-'));
    try {
      const app = new App({ context: { 'aws:cdk:bundling-stacks': [], ...ALL }, outdir });
      new RatchetStack(app, 'RatchetNagSync');
      Validations.of(app).addPlugins(new AwsSolutionsChecks(), new ServerlessChecks());
      expect(() => app.synth()).not.toThrow();
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  }, 120_000);
});
