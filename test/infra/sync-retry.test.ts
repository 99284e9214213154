/**
 * Context `syncRetrySeconds` (and the construct prop of the same name): how long the sync worker retries a
 * change after its first counted failure before it is dead-lettered, SYNC_RETRY_SECONDS on the worker.
 * `cdk synth` refuses, with one line naming the key, what the worker's own parser refuses, and a horizon
 * for a stack that syncs nothing. The output SyncRetrySeconds gives the horizon the worker runs with.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_HORIZON_SECONDS, SYNC_VARIABLES, syncSettings } from '../../lambdas/core/sync/settings.js';
import { Ratchet } from '../../lib/constructs/ratchet.js';
import { NO_BUNDLING, resources, type Synthesized, synthesizeTemplate } from './helpers.js';

const VARIABLE = SYNC_VARIABLES.retryHorizonSeconds;

/** The environment of the function whose description starts with `start`. */
function environmentOf(s: Synthesized, start: string): Record<string, string> {
  const fn = Object.values(resources(s)).find(
    (r) => r.Type === 'AWS::Lambda::Function' && String(r.Properties.Description).startsWith(start),
  );
  expect(fn, start).toBeDefined();
  return fn!.Properties.Environment.Variables as Record<string, string>;
}

const outputs = (s: Synthesized) => s.template.toJSON().Outputs as Record<string, { Value: unknown }>;

describe('syncRetrySeconds', () => {
  it('lands on the worker as SYNC_RETRY_SECONDS, read by the parser the worker starts with', () => {
    const s = synthesizeTemplate({ syncProviders: 'sendgrid', syncRetrySeconds: '900' });
    try {
      const env = environmentOf(s, 'Ratchet sync worker');
      expect(env[VARIABLE]).toBe('900');
      expect(syncSettings(env).retryHorizonMs).toBe(900_000);
      // Only the worker dead-letters: the sweeper and the consumer never read it.
      expect(environmentOf(s, 'Ratchet sync sweeper')).not.toHaveProperty(VARIABLE);
      expect(environmentOf(s, 'Ratchet consumer')).not.toHaveProperty(VARIABLE);
      expect(outputs(s).SyncRetrySeconds!.Value).toBe('900');
      // The dead-letter alarm tells the on-call how long a change was retried.
      const alarm = Object.values(resources(s)).find(
        (r) =>
          r.Type === 'AWS::CloudWatch::Alarm' &&
          String(r.Properties.AlarmDescription).startsWith('A suppression change'),
      );
      expect(alarm!.Properties.AlarmDescription).toMatch(
        /^A suppression change could not be pushed to a provider for 15 min /,
      );
    } finally {
      s.cleanup();
    }
  });

  it('unset: no variable, the worker keeps its default, and the output says so', () => {
    const s = synthesizeTemplate({ syncProviders: 'sendgrid' });
    try {
      expect(environmentOf(s, 'Ratchet sync worker')).not.toHaveProperty(VARIABLE);
      expect(outputs(s).SyncRetrySeconds!.Value).toBe(String(DEFAULT_RETRY_HORIZON_SECONDS));
    } finally {
      s.cleanup();
    }
  });

  it('a number in cdk.json, and the construct prop set in code, reach the worker the same way', () => {
    const s = synthesizeTemplate({ syncProviders: ['ses'], syncRetrySeconds: 7200 });
    try {
      expect(environmentOf(s, 'Ratchet sync worker')[VARIABLE]).toBe('7200');
    } finally {
      s.cleanup();
    }
    const stack = new Stack(new App({ context: { ...NO_BUNDLING } }), 'MyApp');
    new Ratchet(stack, 'Ratchet', { syncProviders: ['sendgrid'], syncRetrySeconds: 120 });
    Template.fromStack(stack).hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('sync worker'),
      Environment: { Variables: Match.objectLike({ [VARIABLE]: '120' }) },
    });
  });
});

describe('cdk synth refuses a retry horizon that is wrong, with one line naming it', () => {
  const expected = 'a whole number of seconds from 1 to 86400';
  it.each([
    [{ syncProviders: 'ses', syncRetrySeconds: 'soon' }, `context syncRetrySeconds must be ${expected}, got "soon"`],
    [{ syncProviders: 'ses', syncRetrySeconds: '0' }, `context syncRetrySeconds must be ${expected}, got "0"`],
    [{ syncProviders: 'ses', syncRetrySeconds: '1.5' }, `context syncRetrySeconds must be ${expected}, got "1.5"`],
    [{ syncProviders: 'ses', syncRetrySeconds: 86_401 }, `context syncRetrySeconds must be ${expected}, got "86401"`],
    [{ syncProviders: 'ses', syncRetrySeconds: [60] }, `context syncRetrySeconds must be ${expected}, got [60]`],
    [
      { syncRetrySeconds: '600' },
      'context syncRetrySeconds is set, but context syncProviders lists no provider: nothing is synced',
    ],
  ])('%j', (context, message) => {
    expect(() => synthesizeTemplate(context)).toThrow(message);
  });

  it('the construct prop, checked the same way', () => {
    const stack = new Stack(new App({ context: { ...NO_BUNDLING } }), 'MyApp');
    expect(() => new Ratchet(stack, 'Ratchet', { syncProviders: ['ses'], syncRetrySeconds: 0 })).toThrow(
      `context syncRetrySeconds must be ${expected}, got "0"`,
    );
  });
});
