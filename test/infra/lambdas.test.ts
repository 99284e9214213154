/**
 * The two Lambdas as deployed, with default context: synthesized once with real local esbuild
 * bundling, so the bundles themselves are checked too.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDERS } from '../../lambdas/core/providers/index.js';
import type { HandlerFunction } from '../../lib/constructs/handler-function.js';
import {
  CONSUMER,
  DEFAULT_INBOX_TTL_DAYS,
  EDGE,
  INBOX_TABLE,
  REPUTATION,
  SES_FEED,
  SUPPRESSION_TABLE,
} from '../../lib/definitions.js';
import { functionLogicalId, logicalId, render, type Synthesized, synthesize } from './helpers.js';

let s: Synthesized;
beforeAll(() => {
  s = synthesize();
}, 180_000);
afterAll(() => s?.cleanup());

const fnProps = (handler: HandlerFunction) =>
  (s.template.toJSON().Resources[functionLogicalId(handler)] as { Properties: Record<string, any> }).Properties;
const handlers = () =>
  [
    ['edge', s.stack.ratchet.edge, EDGE.timeoutSeconds, EDGE.memoryMb],
    ['consumer', s.stack.ratchet.consumer, CONSUMER.timeoutSeconds, CONSUMER.memoryMb],
    ['feed', s.stack.ratchet.feed!, SES_FEED.timeoutSeconds, SES_FEED.memoryMb],
    [
      'reputation counter',
      s.stack.ratchet.reputation.counter.handler,
      REPUTATION.counting.timeoutSeconds,
      REPUTATION.counting.memoryMb,
    ],
  ] as const;

describe('Lambda functions', () => {
  it('are exactly the edge, the consumer, the SES feed, the reputation evaluator and counter (no sweeper, no log-retention or other helper functions)', () => {
    s.template.resourceCountIs('AWS::Lambda::Function', 5);
    // The evaluator's 5-minute schedule (reputation.test.ts), and no other.
    s.template.resourceCountIs('AWS::Events::Rule', 1);
  });

  it('run nodejs22.x on arm64 with the timeouts and memory from definitions, logging to their own log group', () => {
    for (const [, handler, timeout, memory] of handlers()) {
      const props = fnProps(handler);
      expect(props.Runtime).toBe('nodejs22.x');
      expect(props.Architectures).toEqual(['arm64']);
      expect(props.Handler).toBe('index.handler');
      expect(props.Timeout).toBe(timeout);
      expect(props.MemorySize).toBe(memory);
      expect(props.LoggingConfig).toMatchObject({ LogGroup: { Ref: logicalId(handler.logGroup) } });
      expect(props.Role).toEqual({ 'Fn::GetAtt': [logicalId(handler.role), 'Arn'] });
      // Behind API Gateway too, the edge reserves its share of the concurrency budget, and the stream's
      // counter its own (one copy a shard); the SQS-driven functions are bounded by their event sources'
      // MaximumConcurrency instead (concurrency.test.ts).
      expect(props.ReservedConcurrentExecutions).toBe(
        handler === s.stack.ratchet.edge
          ? s.stack.ratchet.config.edgeReservedConcurrency
          : handler === s.stack.ratchet.reputation.counter.handler
            ? REPUTATION.counting.reservedConcurrency
            : undefined,
      );
    }
    expect(EDGE.timeoutSeconds).toBeLessThan(15); // SNS gives up on an HTTPS delivery after 15 s
  });

  it('log JSON, with the platform lines only at WARN and the application level following LOG_LEVEL', () => {
    for (const [, handler] of handlers()) {
      expect(fnProps(handler).LoggingConfig).toMatchObject({
        LogFormat: 'JSON',
        SystemLogLevel: 'WARN',
        ApplicationLogLevel: 'INFO',
      });
    }
  });

  it('have explicit log groups with a retention (plus the API access log)', () => {
    s.template.resourceCountIs('AWS::Logs::LogGroup', 6);
    s.template.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
  });

  it('ship a minified ESM bundle with a source map and the AWS SDK inside', () => {
    for (const [name, handler] of handlers()) {
      const code = fnProps(handler).Code as { S3Key: string };
      const dir = join(s.assembly.directory, `asset.${code.S3Key.replace(/\.zip$/, '')}`);
      expect(existsSync(join(dir, 'index.mjs')), `${name} bundle`).toBe(true);
      expect(existsSync(join(dir, 'index.mjs.map')), `${name} source map`).toBe(true);
      const bundle = readFileSync(join(dir, 'index.mjs'), 'utf8');
      expect(bundle.startsWith('import { createRequire as __ratchetCreateRequire }'), `${name} banner`).toBe(true);
      // Nothing left to resolve from the runtime's node_modules: every static or dynamic import is a
      // Node built-in, and the DynamoDB client (every handler uses it) is inside the bundle.
      const importPattern =
        /(?:^|[;}\s])import\s*(?:(?:\{[^}]*\}|\*\s*as\s+[\w$]+|[\w$]+)\s*from\s*)?["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;
      const imports = [...bundle.matchAll(importPattern)].map((m) => (m[1] ?? m[2])!);
      expect(imports, `${name} imports`).toContain('node:module'); // the banner's own import
      expect(
        imports.filter((spec) => !spec.startsWith('node:')),
        name,
      ).toEqual([]);
      expect(bundle.includes('DynamoDB_20120810'), `${name} bundles @aws-sdk/client-dynamodb`).toBe(true);
      expect(bundle.split('\n').length, `${name} line count`).toBeLessThan(200);
    }
  });

  it('each bundle loads as ESM outside the project (no node_modules) and exports handler', () => {
    for (const [name, handler] of handlers()) {
      const code = fnProps(handler).Code as { S3Key: string };
      const file = join(s.assembly.directory, `asset.${code.S3Key.replace(/\.zip$/, '')}`, 'index.mjs');
      const script = `const m = await import(${JSON.stringify(pathToFileURL(file).href)}); process.stdout.write(typeof m.handler);`;
      const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
        cwd: tmpdir(),
        encoding: 'utf8',
        timeout: 20_000,
        // What the stack sets, with placeholder values; no network is touched at import time.
        env: {
          PATH: process.env.PATH,
          AWS_REGION: 'us-east-1',
          AWS_ACCESS_KEY_ID: 'test',
          AWS_SECRET_ACCESS_KEY: 'test',
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
          INBOX_TABLE: INBOX_TABLE.defaultName,
          SUPPRESSION_TABLE: SUPPRESSION_TABLE.defaultName,
          QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/ratchet-events',
          SNS_TOPIC_ARNS: 'arn:aws:sns:us-east-1:123456789012:ratchet',
          INBOX_TTL_DAYS: String(DEFAULT_INBOX_TTL_DAYS),
          SECRETS_CACHE_SECONDS: '60',
          LOG_LEVEL: 'INFO',
          SES_DEAD_LETTER_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/ratchet-ses-dead-letters',
        },
      });
      expect(out, name).toBe('function');
    }
  });

  it('edge environment: tables, queue, topic allowlist, TTL, log level, one secret ARN per provider that has one, the unsubscribe key and base URL', () => {
    const env = fnProps(s.stack.ratchet.edge).Environment.Variables as Record<string, unknown>;
    const { UNSUBSCRIBE_BASE_URL, ...rest } = env;
    const expected: Record<string, unknown> = {
      INBOX_TABLE: { Ref: logicalId(s.stack.ratchet.inboxTable) },
      QUEUE_URL: { Ref: logicalId(s.stack.ratchet.queue) },
      SNS_TOPIC_ARNS: { Ref: logicalId(s.stack.ratchet.sesTopic) },
      INBOX_TTL_DAYS: String(DEFAULT_INBOX_TTL_DAYS),
      SECRETS_CACHE_SECONDS: '60',
      UNSUBSCRIBE_SECRET_ARN: { Ref: logicalId(s.stack.ratchet.secrets.unsubscribe) },
      POWERTOOLS_SERVICE_NAME: 'ratchet-edge',
      POWERTOOLS_METRICS_NAMESPACE: 'Ratchet',
      LOG_LEVEL: 'INFO',
      NODE_OPTIONS: '--enable-source-maps',
    };
    for (const p of PROVIDERS) {
      if (p.secretArnVariable)
        expected[p.secretArnVariable] = { Ref: logicalId(s.stack.ratchet.secrets.byProvider.get(p.name)!) };
    }
    expect(rest).toEqual(expected); // exact: no POSTMARK_ALLOWED_IPS, TOPIC_ALIASES or TOPIC_LABELS unless given
    expect(render(UNSUBSCRIBE_BASE_URL)).toBe(
      `https://{Ref:${logicalId(s.stack.ratchet.webhookApi!.api)}}.execute-api.{AWS::Region}.{AWS::URLSuffix}`,
    );
    expect(Object.keys(env)).toEqual(
      expect.arrayContaining([
        'SENDGRID_SECRET_ARN',
        'MAILGUN_SECRET_ARN',
        'POSTMARK_SECRET_ARN',
        'STANDARD_WEBHOOK_SECRET_ARN',
        'GENERIC_WEBHOOK_SECRET_ARN',
      ]),
    );
  });

  it('consumer environment', () => {
    expect(fnProps(s.stack.ratchet.consumer).Environment.Variables).toEqual({
      INBOX_TABLE: { Ref: logicalId(s.stack.ratchet.inboxTable) },
      SUPPRESSION_TABLE: { Ref: logicalId(s.stack.ratchet.suppressionTable) },
      POWERTOOLS_SERVICE_NAME: 'ratchet-consumer',
      POWERTOOLS_METRICS_NAMESPACE: 'Ratchet',
      LOG_LEVEL: 'INFO',
      NODE_OPTIONS: '--enable-source-maps',
    });
  });
});
