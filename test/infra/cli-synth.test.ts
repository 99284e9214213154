/**
 * `cdk synth` through the real CLI and bin/app.ts, offline, with the Function URL front door, exactly
 * as an operator runs it (the CLI refuses user context that would skip bundling); and bin/app.ts's
 * answer to a setting it refuses.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

it('npx cdk synth -c front=function-url works offline', { timeout: 300_000 }, () => {
  const out = mkdtempSync(join(tmpdir(), 'ratchet-synth-'));
  try {
    execFileSync(
      process.execPath,
      ['node_modules/aws-cdk/bin/cdk', 'synth', '--quiet', '-c', 'front=function-url', '-o', out],
      { encoding: 'utf8', timeout: 280_000, env: { ...process.env, CDK_DISABLE_VERSION_CHECK: 'true' } },
    );
    const template = JSON.parse(readFileSync(join(out, 'Ratchet.template.json'), 'utf8'));
    const types = Object.values(template.Resources as Record<string, { Type: string }>).map((r) => r.Type);
    expect(types.filter((t) => t === 'AWS::Lambda::Url')).toHaveLength(1);
    expect(types.filter((t) => t.startsWith('AWS::ApiGatewayV2::'))).toEqual([]);
    expect(Object.keys(template.Outputs)).toEqual(
      expect.arrayContaining(['ApiUrl', 'WebhookUrlSes', 'UnsubscribeBaseUrl', 'SesDeadLetterQueueName']),
    );
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

/** bin/app.ts as `cdk synth` runs it (context in CDK_CONTEXT_JSON): what the operator sees for a bad setting. */
describe('a bad or unknown context key', () => {
  const synth = (context: Record<string, unknown>) =>
    spawnSync(process.execPath, ['--import', 'tsx', 'bin/app.ts'], {
      encoding: 'utf8',
      timeout: 120_000,
      env: {
        ...process.env,
        CDK_CONTEXT_JSON: JSON.stringify({ 'aws:cdk:bundling-stacks': [], ...context }),
        CDK_OUTDIR: mkdtempSync(join(tmpdir(), 'ratchet-bad-context-')),
      },
    });

  it.each([
    [
      { inboxTtlDay: '30' },
      'context inboxTtlDay is not a Ratchet setting (did you mean inboxTtlDays?): the keys are in docs/deploy.md#context-options',
    ],
    [{ inboxTtlDays: 'soon' }, 'context inboxTtlDays must be a positive number, got "soon"'],
    [{ front: 'cloudfront' }, 'context front must be one of api-gateway, function-url, got "cloudfront"'],
    [{ inboxTtlDays: '1' }, expect.stringMatching(/^INBOX_TTL_DAYS \(context inboxTtlDays\) is 1 days, shorter than/)],
    [{ syncProviders: 'sparkpost' }, expect.stringMatching(/^context syncProviders: "sparkpost" is not one of/)],
    [
      { syncProviders: 'ses', syncRates: 'ses=5,sendgrid=50' },
      'context syncRates names sendgrid, which context syncProviders does not list',
    ],
    [
      { syncProviders: 'ses', syncRetrySeconds: '0' },
      'context syncRetrySeconds must be a whole number of seconds from 1 to 86400, got "0"',
    ],
  ])(
    '%j: one line naming it, exit 2, no stack trace',
    (context, line) => {
      const result = synth(context);
      expect(result.status).toBe(2);
      expect(result.stderr.trimEnd().split('\n')).toEqual([line]);
      expect(result.stderr).not.toMatch(/^\s+at /m);
      expect(result.stdout).toBe('');
    },
    120_000,
  );
});
