/**
 * Which topic scopes each provider holds (lambdas/adapters/sync/scopes.ts): the sweeper's backfill plans
 * with it, having no provider keys to build targets, and the worker plans with the targets, so both must
 * give the same answer for every scope.
 */
import { describe, expect, it } from 'vitest';
import { createSyncTargets, readSyncConfig } from '../../../../lambdas/adapters/sync/index.js';
import { providerHandlesScope, providerPlan } from '../../../../lambdas/adapters/sync/scopes.js';
import { SYNC_PROVIDER_NAMES } from '../../../../lambdas/core/sync/target.js';

const SCOPES = [
  'sendgrid:group:7',
  'sendgrid:group:x',
  'sendgrid:group:',
  'postmark:stream:broadcast',
  'postmark:stream:',
  'ses:main:weekly',
  'resend:topic:abc',
  'newsletter',
];

describe('provider scopes', () => {
  it('SendGrid holds its numbered groups, Postmark its streams, the others no scope', () => {
    const held = (scope: string) => SYNC_PROVIDER_NAMES.filter((p) => providerHandlesScope(p, scope));
    expect(Object.fromEntries(SCOPES.map((s) => [s, held(s)]))).toEqual({
      'sendgrid:group:7': ['sendgrid'],
      'sendgrid:group:x': [],
      'sendgrid:group:': [],
      'postmark:stream:broadcast': ['postmark'],
      'postmark:stream:': [],
      'ses:main:weekly': [],
      'resend:topic:abc': [],
      newsletter: [],
    });
  });

  it('every target answers as the sweeper’s plan does', () => {
    const env = {
      SYNC_PROVIDERS: SYNC_PROVIDER_NAMES.join(','),
      AWS_REGION: 'us-east-1',
      SENDGRID_API_KEY: 'not-a-key',
      POSTMARK_SERVER_TOKEN: 'not-a-token',
      MAILGUN_API_KEY: 'not-a-key',
      MAILGUN_DOMAINS: 'mg.example.com',
      RESEND_API_KEY: 'not-a-key',
    };
    const config = readSyncConfig(env);
    if (!config.ok) throw new Error(config.problems.join('; '));
    const targets = createSyncTargets(config.config);
    expect(targets.map((t) => t.provider)).toEqual([...SYNC_PROVIDER_NAMES]);
    for (const target of targets) {
      const plan = providerPlan(target.provider, new Map());
      for (const scope of SCOPES)
        expect([target.provider, scope, target.handlesScope(scope)]).toEqual([
          target.provider,
          scope,
          plan.handlesScope(scope),
        ]);
    }
  });
});
