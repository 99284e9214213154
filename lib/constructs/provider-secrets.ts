/**
 * One Secrets Manager secret per provider that has credentials (`<prefix>/<provider>`), plus the
 * one-click unsubscribe key (`<prefix>/unsubscribe`), and read access to them for the edge only.
 *
 * A provider secret starts as `[]`, which means "not configured": the edge builds no provider from it
 * and the route answers 404 until an operator writes real keys. CloudFormation never writes the
 * placeholder again, since the template value does not change. The unsubscribe key is generated at
 * deploy (64 letters and digits: no comma, so it is a one-entry list in the runtime's format).
 */
import { RemovalPolicy, SecretValue } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import type { ProviderDefinition } from '../../lambdas/core/provider.js';
import { allow } from './tables.js';

/** What the secrets need from a registry entry. */
export type ProviderRoute = Pick<ProviderDefinition, 'name' | 'secretArnVariable'>;

/** The one-click unsubscribe "provider": its key is generated, never a `[]` placeholder. */
export const UNSUBSCRIBE = { name: 'unsubscribe', secretArnVariable: 'UNSUBSCRIBE_SECRET_ARN' } as const;

export const isUnsubscribe = (provider: ProviderRoute): boolean =>
  provider.name === UNSUBSCRIBE.name || provider.secretArnVariable === UNSUBSCRIBE.secretArnVariable;

export interface ProviderSecretsProps {
  readonly providers: readonly ProviderRoute[];
  /** `<prefix>/<name>` for a provider name or `unsubscribe`. */
  readonly secretName: (name: string) => string;
  /**
   * Use the secrets a destroyed stack retained, by name, instead of creating them (context
   * `reuseRetained`): the keys operators wrote, and the unsubscribe key every mailed link was signed with.
   */
  readonly reuseRetained?: boolean;
}

export class ProviderSecrets extends Construct {
  /** Provider name -> its credentials secret (providers without credentials, like SES, have none). */
  readonly byProvider: ReadonlyMap<string, secretsmanager.ISecret>;
  readonly unsubscribe: secretsmanager.ISecret;
  /** Whether the secrets were created here (false: imported by name). */
  readonly created: boolean;
  /** Provider name (or `unsubscribe`) -> its ARN variable and secret. */
  private readonly named = new Map<string, { variable: string; secret: secretsmanager.ISecret }>();

  constructor(scope: Construct, id: string, props: ProviderSecretsProps) {
    super(scope, id);
    this.created = props.reuseRetained !== true;
    const byProvider = new Map<string, secretsmanager.ISecret>();
    for (const provider of props.providers) {
      if (!provider.secretArnVariable || isUnsubscribe(provider)) continue;
      const secret = this.secret(`Secret${pascal(provider.name)}`, {
        secretName: props.secretName(provider.name),
        description: `Ratchet ${provider.name} webhook credentials: a JSON array of keys, every one of which verifies`,
        secretStringValue: SecretValue.unsafePlainText('[]'),
      });
      byProvider.set(provider.name, secret);
      this.named.set(provider.name, { variable: provider.secretArnVariable, secret });
    }
    this.byProvider = byProvider;

    this.unsubscribe = this.secret('SecretUnsubscribe', {
      secretName: props.secretName(UNSUBSCRIBE.name),
      description: 'Ratchet one-click unsubscribe token keys: a JSON array or comma list, the first one issues',
      generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
    });
    this.named.set(UNSUBSCRIBE.name, { variable: UNSUBSCRIBE.secretArnVariable, secret: this.unsubscribe });
  }

  /**
   * A retained secret: keys an operator wrote by hand, and the unsubscribe key links already mailed were
   * signed with, survive a stack deletion or a secret replacement. With `reuseRetained`, the one a
   * destroyed stack left behind, by name.
   */
  private secret(id: string, props: secretsmanager.SecretProps & { secretName: string }): secretsmanager.ISecret {
    if (!this.created) return secretsmanager.Secret.fromSecretNameV2(this, id, props.secretName);
    return new secretsmanager.Secret(this, id, { ...props, removalPolicy: RemovalPolicy.RETAIN });
  }

  /**
   * `<PROVIDER>_SECRET_ARN` -> ARN, for a function's environment: every secret (the edge), or only those
   * of the named providers (the SES feed names only `ses`, which has none).
   */
  environment(only?: readonly string[]): Record<string, string> {
    return Object.fromEntries(this.selected(only).map(({ variable, secret }) => [variable, secret.secretArn]));
  }

  /** GetSecretValue on exactly these secrets: all of them (the edge), or the named providers' only; none, no statement. */
  grantRead(grantee: iam.IGrantable, only?: readonly string[]): void {
    // A secret imported by name has a partial ARN (no random suffix); the policy must match the full one.
    const arn = (s: secretsmanager.ISecret) => s.secretFullArn ?? `${s.secretArn}-??????`;
    const secrets = this.selected(only).map(({ secret }) => arn(secret));
    if (secrets.length > 0) allow(grantee, ['secretsmanager:GetSecretValue'], secrets);
  }

  private selected(only: readonly string[] | undefined) {
    return [...this.named].filter(([name]) => only === undefined || only.includes(name)).map(([, entry]) => entry);
  }
}

/** `standard-webhooks` -> `StandardWebhooks`, for construct and output ids. */
export function pascal(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}
