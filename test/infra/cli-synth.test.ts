/**
 * `cdk synth` through the real CLI and bin/app.ts, offline, with the Function URL front door, exactly
 * as an operator runs it (the CLI refuses user context that would skip bundling).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';

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
