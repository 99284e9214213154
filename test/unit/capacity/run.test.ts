/**
 * `npm run capacity` end to end, as a user runs it: a separate process under tsx. The full run
 * synthesizes the stack (tens of seconds on a loaded machine); nothing here checks a duration.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..', '..', '..');
const run = (args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'capacity/run.ts', ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  });

describe('npm run capacity', () => {
  const dir = mkdtempSync(join(tmpdir(), 'capacity-run-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('--help prints the usage and exits 0', () => {
    const result = run(['--help']);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^Usage: npm run capacity/);
    expect(result.stdout).toContain('--profile');
  });

  it('a bad profile file is one line on stderr and exit 2, before anything is synthesized', () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ name: 'x', phases: [{ seconds: 10, sendsPerSecond: 1 }], bounceRate: 7 }));
    const result = run(['--profile', bad]);
    expect(result.status).toBe(2);
    expect(result.stderr.trim()).toBe(`npm run capacity: ${bad}: "bounceRate" must be a number from 0 to 1`);
    expect(result.stdout).toBe('');
  });

  it('a durations file that does not check is exit 2, naming the field', () => {
    const bad = join(dir, 'durations.json');
    writeFileSync(bad, JSON.stringify({ recordedAt: 'x', loadAverage: 0, feedBatchMs: 'slow' }));
    const result = run(['--durations', bad]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`${bad}: "edgeSendgridBatchMs" is missing or not a number`);
  });

  it('an unknown profile name or option is exit 2', () => {
    expect(run(['--profile', 'huge']).status).toBe(2);
    expect(run(['--frobnicate']).status).toBe(2);
    expect(run(['--context', 'syncRates']).status).toBe(2);
    expect(run(['--write', '--context', 'syncRates=ses=40']).status).toBe(2);
  });

  it('--context: the deployment modelled takes the context as cdk synth does; a value the synth refuses is exit 2 with its line', () => {
    const json = run(['--json', '--profile', 'enterprise', '--context', 'syncRates=ses=40,sendgrid=60']);
    expect(json.status, json.stderr).toBe(0);
    const [report] = JSON.parse(json.stdout) as Array<{ providers: Array<{ provider: string; pace: number }> }>;
    const pace = Object.fromEntries(report!.providers.map((p) => [p.provider, p.pace]));
    expect(pace).toMatchObject({ ses: 40, sendgrid: 60, resend: 2 });
    const bad = run(['--context', 'syncRates=ses=fast']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain(
      'npm run capacity: context syncRates: ses must be calls per second for the whole stack, more than 0 and at most 2000, got "fast"',
    );
  }, 240_000);

  it('prints the three built-in profiles, each naming its first binding limit; --json carries the same reports', () => {
    const result = run([]);
    expect(result.status, result.stderr).toBe(0);
    for (const name of ['newsletter', 'campaign', 'enterprise'])
      expect(result.stdout).toContain(`### Profile \`${name}\``);
    expect(result.stdout.match(/\*\*First limit that binds: /g)).toHaveLength(3);
    expect(result.stdout).toContain('| SES feed queue → feed function |');
    expect(result.stdout).toContain('sync → resend');

    const json = run(['--json', '--profile', 'campaign']);
    expect(json.status, json.stderr).toBe(0);
    const [report] = JSON.parse(json.stdout) as Array<{ peakSendRate: number; queues: unknown[] }>;
    expect(report!.peakSendRate).toBe(200);
    expect(report!.queues.length).toBeGreaterThanOrEqual(3);
  }, 240_000);
});
