import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { DeploymentProbe } from '../../../lambdas/adapters/deployment-probe.js';
import { EnvSecretSource, SecretsManagerSecretSource } from '../../../lambdas/adapters/secrets.js';
import { PROVIDERS } from '../../../lambdas/core/providers/index.js';
import type { Context } from '../context.js';
import { targetSettings } from '../edge.js';
import { rootCause, type Target } from '../target.js';
import type { CheckResult } from './doctor.js';

export const PROTECTION = 'suppression table protection';

export async function tablesCheck(target: Target, probe: DeploymentProbe): Promise<CheckResult> {
  await probe.table(target.inboxTable);
  await probe.table(target.suppressionTable);
  return { check: 'tables', status: 'pass', detail: `${target.inboxTable} and ${target.suppressionTable} answer` };
}

export async function ttlCheck(target: Target, probe: DeploymentProbe): Promise<CheckResult> {
  const ttl = await probe.ttlEnabled(target.inboxTable);
  // dynalite has no TTL (it never deletes); the conditions treat expired rows as absent anyway.
  if (ttl === undefined || (target.kind !== 'aws' && !ttl))
    return {
      check: 'inbox TTL',
      status: 'skip',
      detail: 'the local emulator has no TTL (conditions treat expired rows as absent)',
    };
  return ttl
    ? { check: 'inbox TTL', status: 'pass', detail: 'enabled' }
    : {
        check: 'inbox TTL',
        status: 'fail',
        detail: 'disabled: the inbox grows forever',
        fix: 'enable TTL on expiresAt',
      };
}

export async function protectionCheck(target: Target, probe: DeploymentProbe): Promise<CheckResult> {
  const pitr = await probe.pointInTimeRecovery(target.suppressionTable);
  const { deletionProtection } = await probe.table(target.suppressionTable);
  if (target.kind !== 'aws')
    return { check: PROTECTION, status: 'skip', detail: 'local tables have no backups or deletion protection' };
  const missing = [pitr ? '' : 'point-in-time recovery', deletionProtection ? '' : 'deletion protection'].filter(
    Boolean,
  );
  return missing.length === 0
    ? { check: PROTECTION, status: 'pass', detail: 'point-in-time recovery and deletion protection on' }
    : {
        check: PROTECTION,
        status: 'fail',
        detail: `${missing.join(' and ')} off`,
        fix: 'deploy with the default stack settings, or enable them on the table',
      };
}

export async function credentialChecks(ctx: Context, aws: boolean): Promise<CheckResult[]> {
  const { settings, useDemo } = targetSettings(ctx);
  const useSecrets = aws && PROVIDERS.some((p) => p.secretArnVariable && settings[p.secretArnVariable]);
  const source = useSecrets
    ? new SecretsManagerSecretSource(new SecretsManagerClient({ region: ctx.target.region }), settings, 0)
    : new EnvSecretSource(settings);
  const results: CheckResult[] = [];
  for (const provider of PROVIDERS) {
    const check = `credentials ${provider.name}`;
    const where = useSecrets && provider.secretArnVariable ? provider.secretArnVariable : provider.credentialsVariable;
    try {
      const credentials = await source.credentials(provider);
      if (credentials.length === 0) {
        results.push({ check, status: 'pass', detail: `not configured (${where} empty): its route answers 404` });
        continue;
      }
      provider.create({
        credentials,
        now: Date.now,
        nonces: { claim: async () => true },
        certificates: { get: () => Promise.reject(new Error('unused')) },
        settings,
      });
      // Generated demo credentials work, but anyone with this machine's .data/ can sign with them.
      if (useDemo && !ctx.env[provider.credentialsVariable]) {
        results.push({
          check,
          status: 'warn',
          detail: `generated demo credentials (${where} unset): fine for trying Ratchet, not for a real provider`,
          fix: `set ${where} to the provider's own`,
        });
      } else results.push({ check, status: 'pass', detail: `${credentials.length} credential(s) parse` });
    } catch (error) {
      results.push({ check, status: 'fail', detail: `${where}: ${rootCause(error)}`, fix: `correct ${where}` });
    }
  }
  return results;
}

export async function subscriptionCheck(ctx: Context, probe: DeploymentProbe): Promise<CheckResult> {
  const topic = ctx.env.SES_TOPIC_ARN ?? ctx.env.SNS_TOPIC_ARNS?.split(',')[0]?.trim();
  if (!topic)
    return {
      check: 'SES subscription',
      status: 'warn',
      detail: 'SES_TOPIC_ARN not set: not checked',
      fix: 'set SES_TOPIC_ARN from the SesTopicArn output',
    };
  const https = (await probe.subscriptions(topic)).filter((s) => s.protocol === 'https');
  if (https.length === 0)
    return {
      check: 'SES subscription',
      status: 'fail',
      detail: `${topic} has no HTTPS subscription`,
      fix: 'redeploy the stack',
    };
  const pending = https.filter((s) => !s.confirmed);
  return pending.length === 0
    ? { check: 'SES subscription', status: 'pass', detail: 'confirmed' }
    : {
        check: 'SES subscription',
        status: 'fail',
        detail: `PendingConfirmation for ${pending.map((s) => s.endpoint).join(', ')}`,
        fix: 'request the confirmation again (docs/deploy.md "Checking the SES subscription")',
      };
}

export async function alarmCheck(ctx: Context, probe: DeploymentProbe): Promise<CheckResult> {
  const topic = ctx.env.ALARM_TOPIC_ARN;
  if (!topic)
    return {
      check: 'alarm subscribers',
      status: 'warn',
      detail: 'ALARM_TOPIC_ARN not set: not checked',
      fix: 'set ALARM_TOPIC_ARN from the AlarmTopicArn output',
    };
  const confirmed = (await probe.subscriptions(topic)).filter((s) => s.confirmed);
  return confirmed.length > 0
    ? { check: 'alarm subscribers', status: 'pass', detail: `${confirmed.length} confirmed` }
    : {
        check: 'alarm subscribers',
        status: 'fail',
        detail: 'no confirmed subscriber: alarms reach nobody',
        fix: 'subscribe an address to the AlarmTopicArn output and confirm it',
      };
}
