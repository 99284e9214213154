import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { EnvSecretSource, parseCredentialList, SecretsManagerSecretSource } from '../../../lambdas/adapters/secrets.js';

const sendgrid = {
  name: 'sendgrid',
  credentialsVariable: 'SENDGRID_PUBLIC_KEYS',
  secretArnVariable: 'SENDGRID_SECRET_ARN',
};

describe('credential lists', () => {
  it('parses comma-separated lists and JSON arrays, dropping blanks', () => {
    expect(parseCredentialList(' a, b ,,c ')).toEqual(['a', 'b', 'c']);
    expect(parseCredentialList('["new", "old", ""]')).toEqual(['new', 'old']);
    expect(parseCredentialList('[]')).toEqual([]);
    expect(parseCredentialList(undefined)).toEqual([]);
    expect(() => parseCredentialList('[1,2]')).toThrow();
  });

  it('reads the provider variable from the environment', async () => {
    expect(await new EnvSecretSource({ SENDGRID_PUBLIC_KEYS: 'k1,k2' }).credentials(sendgrid)).toEqual(['k1', 'k2']);
    expect(await new EnvSecretSource({}).credentials(sendgrid)).toEqual([]);
  });

  it('reads Secrets Manager, caches briefly, and picks up a rotation after the cache expires', async () => {
    const sm = mockClient(SecretsManagerClient);
    sm.on(GetSecretValueCommand).resolvesOnce({ SecretString: '["old"]' }).resolves({ SecretString: '["new","old"]' });
    let now = 0;
    const source = new SecretsManagerSecretSource(
      new SecretsManagerClient({}),
      { SENDGRID_SECRET_ARN: 'arn:sg' },
      60_000,
      () => now,
    );
    expect(await source.credentials(sendgrid)).toEqual(['old']);
    now = 59_999;
    expect(await source.credentials(sendgrid)).toEqual(['old']);
    now = 60_001;
    expect(await source.credentials(sendgrid)).toEqual(['new', 'old']);
    expect(sm.commandCalls(GetSecretValueCommand)).toHaveLength(2);
    expect(sm.commandCalls(GetSecretValueCommand)[0]!.args[0].input).toEqual({ SecretId: 'arn:sg' });
    sm.restore();
  });

  it('treats the placeholder secret the stack creates as "not configured"', async () => {
    const sm = mockClient(SecretsManagerClient);
    sm.on(GetSecretValueCommand).resolves({ SecretString: '[]' });
    const source = new SecretsManagerSecretSource(
      new SecretsManagerClient({}),
      { SENDGRID_SECRET_ARN: 'arn:sg' },
      1,
      () => 0,
    );
    expect(await source.credentials(sendgrid)).toEqual([]);
    sm.restore();
  });
});
