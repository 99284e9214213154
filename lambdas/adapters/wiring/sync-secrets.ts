/**
 * The sync worker's provider keys on AWS: Secrets Manager `<prefix>/sync/<provider>` (ARN in
 * `SYNC_<PROVIDER>_SECRET_ARN`), read and cached like the webhook secrets (SECRETS_CACHE_SECONDS), then
 * handed to the adapters' reader under the variable names it knows (SENDGRID_API_KEY ...). The targets
 * are rebuilt only when a key changed. Locally there are no ARNs and the keys come from the environment.
 */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { SyncProviderName, SyncTarget } from '../../core/sync/target.js';
import type { Env } from '../environment.js';
import { SecretsManagerSecretSource } from '../secrets.js';
import { createSyncTargets, readSyncConfig } from '../sync/index.js';

/** The adapters' key variable per provider (SES uses the role's credentials). */
export const SYNC_KEY_VARIABLE: Partial<Record<SyncProviderName, string>> = {
  sendgrid: 'SENDGRID_API_KEY',
  postmark: 'POSTMARK_SERVER_TOKEN',
  mailgun: 'MAILGUN_API_KEY',
  resend: 'RESEND_API_KEY',
};

export const syncSecretArnVariable = (provider: SyncProviderName) => `SYNC_${provider.toUpperCase()}_SECRET_ARN`;

export function syncTargetSource(
  env: Env,
  options: { region: string; cacheMs: number },
): () => Promise<ReadonlyMap<SyncProviderName, SyncTarget>> {
  const secrets = new SecretsManagerSecretSource(
    new SecretsManagerClient({ region: options.region }),
    env,
    options.cacheMs,
  );
  let built: { fingerprint: string; targets: ReadonlyMap<SyncProviderName, SyncTarget> } | undefined;
  return async () => {
    const keys: Record<string, string> = {};
    for (const [provider, variable] of Object.entries(SYNC_KEY_VARIABLE) as Array<[SyncProviderName, string]>) {
      const secretArnVariable = syncSecretArnVariable(provider);
      if (!env[secretArnVariable]) continue;
      const [key] = await secrets.credentials({
        name: `sync-${provider}`,
        credentialsVariable: variable,
        secretArnVariable,
      });
      if (key !== undefined) keys[variable] = key;
    }
    const fingerprint = JSON.stringify(keys);
    if (built?.fingerprint === fingerprint) return built.targets;
    const config = readSyncConfig({ ...env, ...keys });
    // A problem line names the variable, never the key.
    if (!config.ok) throw new Error(`sync configuration: ${config.problems.join('; ')}`);
    built = { fingerprint, targets: new Map(createSyncTargets(config.config).map((t) => [t.provider, t] as const)) };
    return built.targets;
  };
}
