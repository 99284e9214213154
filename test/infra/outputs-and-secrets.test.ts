/** Secrets, outputs, and a clean synth, with default context. */
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDERS } from '../../lambdas/core/providers/index.js';
import { pascal, secretNameFor } from '../../lib/stack.js';
import { logicalId, render, resolved, resources, type Synthesized, synthesizeTemplate } from './helpers.js';

let s: Synthesized;
beforeAll(() => {
  s = synthesizeTemplate();
}, 180_000);
afterAll(() => s?.cleanup());

describe('secrets', () => {
  it('one retained placeholder secret per provider with a secretArnVariable, none for SES', () => {
    const withSecret = PROVIDERS.filter((p) => p.secretArnVariable && p.name !== 'unsubscribe');
    expect(withSecret.map((p) => p.name)).not.toContain('ses');
    for (const p of withSecret) {
      const secret = resources(s)[logicalId(s.stack.ratchet.secrets.byProvider.get(p.name)!)]!;
      expect(secret.DeletionPolicy).toBe('Retain');
      expect(secret.Properties).toMatchObject({ Name: secretNameFor(p.name), SecretString: '[]' });
    }
    s.template.resourceCountIs('AWS::SecretsManager::Secret', withSecret.length + 1);
  });

  it('<prefix>/unsubscribe holds a random key generated at deploy (letters and digits: one entry of a comma list), retained', () => {
    const secret = resources(s)[logicalId(s.stack.ratchet.secrets.unsubscribe)]!;
    expect(secret.DeletionPolicy).toBe('Retain');
    expect(secret.Properties.Name).toBe('ratchet/unsubscribe');
    expect(secret.Properties.SecretString).toBeUndefined();
    expect(secret.Properties.GenerateSecretString).toEqual({
      PasswordLength: 64,
      ExcludePunctuation: true,
      IncludeSpace: false,
    });
  });

  it('a registry entry named unsubscribe gets no placeholder secret and no webhook URL', () => {
    const t = synthesizeTemplate(
      {},
      { providers: [...PROVIDERS, { name: 'unsubscribe', secretArnVariable: 'UNSUBSCRIBE_SECRET_ARN' }] },
    );
    try {
      const names = Object.values(t.template.findResources('AWS::SecretsManager::Secret')).map(
        (x) => x.Properties.Name,
      );
      expect(names.filter((n) => n === 'ratchet/unsubscribe')).toHaveLength(1);
      expect(t.template.toJSON().Outputs.WebhookUrlUnsubscribe).toBeUndefined();
    } finally {
      t.cleanup();
    }
  }, 180_000);
});

describe('outputs', () => {
  it('a webhook URL per registry entry, unsubscribe base, tables, queues, topic, SES dead letters, configuration set and secret ARNs', () => {
    const outputs = s.template.toJSON().Outputs as Record<string, { Value: unknown }>;
    const api = `https://{Ref:${logicalId(s.stack.ratchet.webhookApi!.api)}}.execute-api.{AWS::Region}.{AWS::URLSuffix}/`;
    for (const p of PROVIDERS) {
      expect(render(outputs[`WebhookUrl${pascal(p.name)}`]?.Value), p.name).toBe(`${api}webhooks/${p.name}`);
    }
    for (const [name, secret] of s.stack.ratchet.secrets.byProvider) {
      expect(outputs[`SecretArn${pascal(name)}`]?.Value).toEqual(resolved(s.stack, secret.secretArn));
    }
    expect(render(outputs.ApiUrl?.Value)).toBe(api);
    expect(render(outputs.UnsubscribeBaseUrl?.Value)).toBe(api.slice(0, -1));
    expect(outputs.UnsubscribeSecretArn?.Value).toEqual({ Ref: logicalId(s.stack.ratchet.secrets.unsubscribe) });
    expect(outputs.InboxTableName?.Value).toEqual({ Ref: logicalId(s.stack.ratchet.inboxTable) });
    expect(outputs.SuppressionTableName?.Value).toEqual({ Ref: logicalId(s.stack.ratchet.suppressionTable) });
    expect(outputs.QueueUrl?.Value).toEqual({ Ref: logicalId(s.stack.ratchet.queue) });
    expect(outputs.SesTopicArn?.Value).toEqual({ Ref: logicalId(s.stack.ratchet.sesTopic) });
    expect(outputs.SesDeadLetterQueueUrl?.Value).toEqual({ Ref: logicalId(s.stack.ratchet.sesDeadLetterQueue) });
    expect(outputs.SesDeadLetterQueueName?.Value).toEqual({
      'Fn::GetAtt': [logicalId(s.stack.ratchet.sesDeadLetterQueue), 'QueueName'],
    });
    expect(outputs.ConfigurationSetName?.Value).toEqual({ Ref: logicalId(s.stack.ratchet.configurationSet!) });
    expect(outputs.AlarmTopicArn?.Value).toEqual({ Ref: logicalId(s.stack.ratchet.alarms.topic) });
  });

  it('synthesizes without warnings or errors', () => {
    expect(Annotations.fromStack(s.stack).findWarning('*', Match.anyValue())).toEqual([]);
    expect(Annotations.fromStack(s.stack).findError('*', Match.anyValue())).toEqual([]);
  });
});
