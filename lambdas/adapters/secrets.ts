/**
 * Where each provider's credentials list comes from. Every entry in the list verifies, so a rotation is:
 * add the new secret next to the old one, switch the provider over, then remove the old one.
 *
 * - Locally: the provider's environment variable, comma-separated.
 * - In AWS: one Secrets Manager secret per provider (its ARN in `<PROVIDER>_SECRET_ARN`), holding a JSON
 *   array or a comma-separated string, cached briefly so a rotation lands without a redeploy.
 * - SES is special: its "credentials" are the allowed SNS topic ARNs, which are not secret and always
 *   come from `SNS_TOPIC_ARNS`.
 */
import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { SecretSource } from '../core/pipeline/ports.js';
import { splitSecretList } from '../core/secret-list.js';

type ProviderRef = Parameters<SecretSource['credentials']>[0];
type Env = Readonly<Record<string, string | undefined>>;

/** A credentials list that does not parse: a configuration mistake, whose message never quotes the value. */
export { SecretListFormatError as CredentialFormatError } from '../core/secret-list.js';

/** Splits a credentials string (core/secret-list.ts): a JSON array of strings, or a comma-separated list. */
export function parseCredentialList(value: string | undefined): string[] {
  return splitSecretList(value);
}

export class EnvSecretSource implements SecretSource {
  constructor(private readonly env: Env) {}

  async credentials(provider: ProviderRef): Promise<string[]> {
    return parseCredentialList(this.env[provider.credentialsVariable]);
  }
}

export class SecretsManagerSecretSource implements SecretSource {
  private readonly cache = new Map<string, { value: string[]; expiresAt: number }>();
  private readonly fallback: EnvSecretSource;

  constructor(
    private readonly client: SecretsManagerClient,
    private readonly env: Env,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.fallback = new EnvSecretSource(env);
  }

  async credentials(provider: ProviderRef): Promise<string[]> {
    const arn = provider.secretArnVariable ? this.env[provider.secretArnVariable] : undefined;
    if (!arn) return this.fallback.credentials(provider);
    const cached = this.cache.get(arn);
    if (cached && cached.expiresAt > this.now()) return cached.value;
    const result = await this.client.send(new GetSecretValueCommand({ SecretId: arn }));
    const value = parseCredentialList(result.SecretString);
    this.cache.set(arn, { value, expiresAt: this.now() + this.ttlMs });
    return value;
  }
}
