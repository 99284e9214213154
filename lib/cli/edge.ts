/**
 * The same edge the webhook route runs (providers, inbox, queue, dedup), built for the CLI's target, so
 * `ratchet ses redrive` admits a dead-lettered message exactly as if SNS had delivered it. Against the
 * local stack (or a DYNAMODB_ENDPOINT stack with demo credentials) it uses the same demo defaults as
 * `npm start`; against AWS, only what the environment says (SNS_TOPIC_ARNS, QUEUE_URL, table names).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { MemoryCounters } from '../../lambdas/adapters/observability.js';
import { buildEdge, configFromEnv } from '../../lambdas/adapters/wiring.js';
import type { WebhookEdge } from '../../lambdas/core/pipeline/edge.js';
import type { Log } from '../../lambdas/core/pipeline/ports.js';
import { applyDemoDefaults, demoCredentialsPath, ensureDemoCredentials } from '../local/demo-credentials.js';
import type { Context } from './context.js';

/** Rejections are reported per message by the command itself; the edge's own lines would only repeat them. */
const quiet: Log = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** The settings the target's edge runs with: `npm start`'s demo defaults for a local stack, else the environment. */
export function targetSettings(ctx: Context): { useDemo: boolean; settings: Record<string, string | undefined> } {
  const { target, env } = ctx;
  const dataDir = resolve(env.RATCHET_DATA_DIR ?? '.data');
  const useDemo = target.kind === 'local' || (target.kind === 'endpoint' && existsSync(demoCredentialsPath(dataDir)));
  return {
    useDemo,
    settings: useDemo ? applyDemoDefaults(env, dataDir, ensureDemoCredentials(dataDir)).settings : { ...env },
  };
}

/** `queueUrl`: the events queue when the target names none itself (found from QUEUE_NAME, say). */
export function buildTargetEdge(ctx: Context, queueUrl: string | undefined = ctx.target.queueUrl): WebhookEdge {
  const { target } = ctx;
  if (!queueUrl) throw new Error('QUEUE_URL is not set (take it from the stack outputs)');
  const { useDemo, settings } = targetSettings(ctx);
  const config = configFromEnv({
    ...settings,
    AWS_REGION: target.region,
    DYNAMODB_ENDPOINT: target.dynamoEndpoint,
    SQS_ENDPOINT: target.sqsEndpoint,
    INBOX_TABLE: target.inboxTable,
    SUPPRESSION_TABLE: target.suppressionTable,
    QUEUE_URL: queueUrl,
  });
  return buildEdge(
    useDemo ? { ...config, secrets: 'env' } : config,
    { doc: ctx.doc, sqs: ctx.sqs },
    {
      log: quiet,
      counters: new MemoryCounters(),
      now: ctx.now,
    },
  );
}
