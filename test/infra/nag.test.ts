/**
 * cdk-nag 3 (AwsSolutions + Serverless, through `Validations`): zero unacknowledged findings with
 * either front door, and every acknowledgement sits on the resource it is about.
 */

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { afterEach, describe, expect, it } from 'vitest';
import { NAG_ACKNOWLEDGEMENTS } from '../../lib/constructs/nag-acknowledgements.js';
import { RatchetStack } from '../../lib/stack.js';
import { NO_BUNDLING } from './helpers.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function nagged(context: Record<string, unknown>, extra?: (stack: RatchetStack) => void) {
  const outdir = mkdtempSync(join(tmpdir(), 'ratchet-nag-'));
  dirs.push(outdir);
  const app = new App({ context: { ...NO_BUNDLING, ...context }, outdir });
  const stack = new RatchetStack(app, 'RatchetNag');
  extra?.(stack);
  Validations.of(app).addPlugins(new AwsSolutionsChecks(), new ServerlessChecks());
  return { app, stack, outdir };
}

describe('cdk-nag', { timeout: 180_000 }, () => {
  for (const context of [
    { front: 'api-gateway' },
    { front: 'function-url' },
    { front: 'api-gateway', sesFeed: 'https' },
    { front: 'function-url', sesFeed: 'https' },
    { reuseRetained: 'true' },
  ]) {
    it(`reports nothing unacknowledged (${JSON.stringify(context)})`, () => {
      const { app } = nagged(context);
      expect(() => app.synth()).not.toThrow();
    });
  }

  it('does report a finding nobody acknowledged (the check is live)', () => {
    const { app, outdir } = nagged({}, (stack) => new sqs.Queue(stack, 'Unjustified'));
    expect(() => app.synth()).toThrow(/validation-report\.json/);
    const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8'));
    const paths = report.pluginReports.flatMap((p: any) =>
      p.violations.flatMap((v: any) => v.violatingConstructs.map((c: any) => c.constructPath)),
    );
    expect(paths.length).toBeGreaterThan(0);
    for (const path of paths) expect(path).toMatch(/^RatchetNag\/Unjustified\//);
  });

  it('acknowledgements are recorded on their own resources only, each with a reason', () => {
    const { stack } = nagged({});
    const recorded = (construct: { node: { metadata: Array<{ type: string; data: unknown }> } }) =>
      construct.node.metadata
        .filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
        .flatMap((m) => m.data as never[]);
    expect(JSON.stringify(recorded(stack.ratchet.inboxTable))).toContain('AwsSolutions-DDB3');
    expect(JSON.stringify(recorded(stack.ratchet.suppressionTable))).not.toContain('AwsSolutions-DDB3');
    expect(JSON.stringify(recorded(stack.ratchet.queue))).toBe('[]');
    for (const acks of Object.values(NAG_ACKNOWLEDGEMENTS)) {
      for (const [id, reason] of acks) {
        expect(id).toMatch(/^(AwsSolutions|Serverless)-[A-Za-z0-9]+$/);
        expect(reason.length, id).toBeGreaterThan(40);
      }
    }
  });
});
