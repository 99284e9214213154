/**
 * On AWS a provider secret can be edited at run time. A malformed one must answer 503 (the provider
 * keeps the event and retries), log `configuration_error` without the secret, and emit the
 * `ConfigurationErrors` metric per provider that the stack alarms on.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryCounters, powertoolsCounters } from '../../../lambdas/adapters/observability.js';
import { buildEdge, configFromEnv, createClients, type RuntimeConfig } from '../../../lambdas/adapters/wiring.js';
import type { Log } from '../../../lambdas/core/pipeline/ports.js';

const SHORT_SECRET = 'tooShortSecret-Q7x';
const ENV = {
  GENERIC_WEBHOOK_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:ratchet/generic',
  SENDGRID_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:ratchet/sendgrid',
  QUEUE_URL: 'http://127.0.0.1:9/000000000000/never-used',
  // Nothing here may reach the network: a request that gets that far has passed the check under test.
  DYNAMODB_ENDPOINT: 'http://127.0.0.1:9',
  SQS_ENDPOINT: 'http://127.0.0.1:9',
};

function capture(): Log & { lines: Array<{ level: string; message: string; fields?: Record<string, unknown> }> } {
  const lines: Array<{ level: string; message: string; fields?: Record<string, unknown> }> = [];
  return {
    lines,
    info: (message, fields) => lines.push({ level: 'info', message, fields }),
    warn: (message, fields) => lines.push({ level: 'warn', message, fields }),
    error: (message, fields) => lines.push({ level: 'error', message, fields }),
  };
}

const request = { body: Buffer.from('{"id":"e1"}'), headers: { 'x-event-id': 'e1' }, sourceIp: '192.0.2.1' };

let sm: ReturnType<typeof mockClient>;
beforeEach(() => {
  sm = mockClient(SecretsManagerClient);
});
afterEach(() => sm.restore());

function edgeWith(log: Log, counters = new MemoryCounters()) {
  const config: RuntimeConfig = { ...configFromEnv(ENV), secrets: 'secrets-manager', secretsCacheSeconds: 0 };
  return { edge: buildEdge(config, createClients(config), { log, counters }), counters };
}

describe('a malformed provider secret on AWS', () => {
  it('answers 503 and reports configuration_error with the variable and reason, never the secret', async () => {
    sm.on(GetSecretValueCommand, { SecretId: ENV.GENERIC_WEBHOOK_SECRET_ARN }).resolves({
      SecretString: JSON.stringify([SHORT_SECRET]),
    });
    const log = capture();
    const { edge, counters } = edgeWith(log);

    const response = await edge.receive('generic', request);

    expect(response).toEqual({ status: 503, body: { error: 'transient_failure' } });
    expect(log.lines.filter((l) => l.message === 'configuration_error')).toEqual([
      {
        level: 'error',
        message: 'configuration_error',
        fields: {
          code: 'configuration_error',
          provider: 'generic',
          variable: 'GENERIC_WEBHOOK_SECRET_ARN',
          reason: 'GENERIC_WEBHOOK_SECRETS entry 1 is shorter than 32 bytes',
        },
      },
    ]);
    expect(counters.totals.get('ConfigurationErrors{provider=generic}')).toBe(1);
    expect(JSON.stringify(log.lines)).not.toContain(SHORT_SECRET);
  });

  it('reports a secret that is not valid JSON without quoting it (JSON.parse would)', async () => {
    const secret = '["MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE-secret-part';
    sm.on(GetSecretValueCommand, { SecretId: ENV.SENDGRID_SECRET_ARN }).resolves({ SecretString: secret });
    const log = capture();
    const { edge, counters } = edgeWith(log);

    expect((await edge.receive('sendgrid', request)).status).toBe(503);
    expect(log.lines.find((l) => l.message === 'configuration_error')?.fields).toEqual({
      code: 'configuration_error',
      provider: 'sendgrid',
      variable: 'SENDGRID_SECRET_ARN',
      reason: 'starts with "[" but is not valid JSON (expected a JSON array of strings)',
    });
    expect(counters.totals.get('ConfigurationErrors{provider=sendgrid}')).toBe(1);
    expect(JSON.stringify(log.lines)).not.toContain('secret-part');
  });

  it('recovers as soon as the secret is fixed: the request then reaches verification', async () => {
    sm.on(GetSecretValueCommand)
      .resolvesOnce({ SecretString: JSON.stringify([SHORT_SECRET]) })
      .resolves({ SecretString: JSON.stringify(['a'.repeat(40)]) });
    const log = capture();
    const { edge, counters } = edgeWith(log);

    expect((await edge.receive('generic', request)).status).toBe(503);
    // Fixed secret: the unsigned request is now refused by the signature check, not by configuration.
    expect(await edge.receive('generic', request)).toEqual({ status: 401, body: { error: 'authentication_failed' } });
    expect(counters.totals.get('ConfigurationErrors{provider=generic}')).toBe(1);
  });

  it('does not call a Secrets Manager outage a configuration error', async () => {
    sm.on(GetSecretValueCommand).rejects(Object.assign(new Error('throttled'), { name: 'ThrottlingException' }));
    const log = capture();
    const { edge, counters } = edgeWith(log);

    expect((await edge.receive('generic', request)).status).toBe(503);
    expect(log.lines.some((l) => l.message === 'configuration_error')).toBe(false);
    expect(counters.totals.has('ConfigurationErrors{provider=generic}')).toBe(false);
  });

  it('emits ConfigurationErrors as an EMF metric in the Ratchet namespace with the provider dimension', async () => {
    sm.on(GetSecretValueCommand).resolves({ SecretString: JSON.stringify([SHORT_SECRET]) });
    const written: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    try {
      const { edge } = edgeWith(capture(), powertoolsCounters('ratchet-edge', 'Ratchet') as MemoryCounters);
      await edge.receive('generic', request);
    } finally {
      spy.mockRestore();
    }
    const metrics = written
      .flatMap((chunk) => chunk.split('\n'))
      .filter((line) => line.includes('"_aws"'))
      .map((line) => JSON.parse(line) as Record<string, any>)
      .filter((emf) => 'ConfigurationErrors' in emf);
    expect(metrics).toHaveLength(1);
    const [emf] = metrics;
    expect(emf!.provider).toBe('generic');
    expect(emf!.ConfigurationErrors).toBe(1);
    const directive = emf!._aws.CloudWatchMetrics[0];
    expect(directive.Namespace).toBe('Ratchet');
    // One EMF record per invocation: the 503's TransientFailures count shares it.
    expect(directive.Metrics).toContainEqual({ Name: 'ConfigurationErrors', Unit: 'Count' });
    expect(directive.Dimensions.flat()).toContain('provider');
    expect(JSON.stringify(metrics)).not.toContain(SHORT_SECRET);
  });
});
