/**
 * Context `syncRates` and `syncConcurrency`: a stack-wide figure per provider, shared between the sync
 * worker's copies as SYNC_<PROVIDER>_RATE and _CONCURRENCY on the worker and the sweeper; the outputs
 * SyncRates and SyncConcurrency give what the copies add up to; `cdk synth` refuses what does not parse,
 * an unknown or unlisted provider, and a figure whose share rounds to 0.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNC_DEFAULT_LIMITS, syncSettings } from '../../lambdas/core/sync/settings.js';
import { SYNC_PROVIDER_NAMES } from '../../lambdas/core/sync/target.js';
import { Ratchet } from '../../lib/constructs/ratchet.js';
import { SYNC_WORKER } from '../../lib/sync-definitions.js';
import { NO_BUNDLING, resources, type Synthesized, synthesizeTemplate } from './helpers.js';

const COPIES = SYNC_WORKER.maxConcurrency;
const CONTEXT = {
  syncProviders: 'ses,sendgrid,resend',
  syncRates: 'sendgrid=50, ses=14,resend=1',
  syncConcurrency: 'sendgrid=17',
};

/** The environment of the function whose description starts with `start`. */
function environmentOf(s: Synthesized, start: string): Record<string, unknown> {
  const fn = Object.values(resources(s)).find(
    (r) => r.Type === 'AWS::Lambda::Function' && String(r.Properties.Description).startsWith(start),
  );
  expect(fn, start).toBeDefined();
  return fn!.Properties.Environment.Variables as Record<string, unknown>;
}

describe('syncRates and syncConcurrency', () => {
  let s: Synthesized;
  beforeAll(() => {
    s = synthesizeTemplate(CONTEXT);
  });
  afterAll(() => s.cleanup());

  it("the worker gets each copy's share: the figure over the copies, rounded down", () => {
    expect(COPIES).toBe(2);
    const env = environmentOf(s, 'Ratchet sync worker');
    expect(env).toMatchObject({
      SYNC_SENDGRID_RATE: '25',
      SYNC_SES_RATE: '7',
      SYNC_RESEND_RATE: '0.5',
      // 17 in flight over 2 copies: 8 each, never 17 together.
      SYNC_SENDGRID_CONCURRENCY: '8',
    });
    // Unset figures keep the worker's own defaults: no variable at all.
    expect(Object.keys(env).filter((k) => /^SYNC_(SES|RESEND)_CONCURRENCY$/.test(k))).toEqual([]);
    // What the worker reads from them, with the parser it starts with.
    const read = syncSettings(env as Record<string, string>);
    expect(read.limits.sendgrid).toEqual({ rate: 25, concurrency: 8 });
    expect(read.limits.ses).toEqual({ rate: 7, concurrency: SYNC_DEFAULT_LIMITS.ses.concurrency });
  });

  it('the sweeper gets the same shares (its lease and backfill budget follow the rates)', () => {
    const worker = environmentOf(s, 'Ratchet sync worker');
    const sweeper = environmentOf(s, 'Ratchet sync sweeper');
    const limits = (env: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(env).filter(([k]) => /^SYNC_[A-Z]+_(RATE|CONCURRENCY)$/.test(k)));
    expect(Object.keys(limits(sweeper))).toHaveLength(4);
    expect(limits(sweeper)).toEqual(limits(worker));
  });

  it('the consumer gets none: it only sends the fast path', () => {
    expect(Object.keys(environmentOf(s, 'Ratchet consumer')).filter((k) => /_(RATE|CONCURRENCY)$/.test(k))).toEqual([]);
  });

  it('outputs SyncRates and SyncConcurrency: what the copies add up to, defaults included, in the form context takes', () => {
    const outputs = s.template.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(outputs.SyncRates!.Value).toBe('ses=14,sendgrid=50,resend=1');
    const d = SYNC_DEFAULT_LIMITS;
    expect(outputs.SyncConcurrency!.Value).toBe(
      `ses=${d.ses.concurrency * COPIES},sendgrid=16,resend=${d.resend.concurrency * COPIES}`,
    );
  });
});

describe('without them', () => {
  it('no limit variable on any function, and the outputs give the defaults times the copies', () => {
    const s = synthesizeTemplate({ syncProviders: SYNC_PROVIDER_NAMES.join(','), mailgunDomains: 'mg.example.com' });
    try {
      expect(JSON.stringify(resources(s))).not.toMatch(/SYNC_[A-Z]+_(RATE|CONCURRENCY)/);
      const outputs = s.template.toJSON().Outputs as Record<string, { Value: unknown }>;
      expect(outputs.SyncRates!.Value).toBe(
        SYNC_PROVIDER_NAMES.map((p) => `${p}=${SYNC_DEFAULT_LIMITS[p].rate * COPIES}`).join(','),
      );
      expect(outputs.SyncConcurrency!.Value).toBe(
        SYNC_PROVIDER_NAMES.map((p) => `${p}=${SYNC_DEFAULT_LIMITS[p].concurrency * COPIES}`).join(','),
      );
    } finally {
      s.cleanup();
    }
  });
});

describe('as construct props', () => {
  it('syncRates and syncConcurrency set in code (no context) reach the worker the same way', () => {
    const stack = new Stack(new App({ context: { ...NO_BUNDLING } }), 'MyApp');
    new Ratchet(stack, 'Ratchet', {
      syncProviders: ['sendgrid'],
      syncRates: ['sendgrid=101'],
      syncConcurrency: ['sendgrid=6'],
    });
    Template.fromStack(stack).hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('sync worker'),
      Environment: { Variables: Match.objectLike({ SYNC_SENDGRID_RATE: '50.5', SYNC_SENDGRID_CONCURRENCY: '3' }) },
    });
  });
});

describe('cdk synth refuses a sync limit that is wrong, with one line naming it', () => {
  it.each([
    [
      { syncProviders: 'sendgrid', syncRates: 'sendgrid=fast' },
      'context syncRates: sendgrid must be calls per second for the whole stack, more than 0 and at most 2000, got "fast"',
    ],
    [
      { syncProviders: 'sendgrid', syncRates: 'sendgrid=1e3' },
      'context syncRates: sendgrid must be calls per second for the whole stack, more than 0 and at most 2000, got "1e3"',
    ],
    [
      { syncProviders: 'sendgrid', syncRates: 'sendgrid=0' },
      'context syncRates: sendgrid must be calls per second for the whole stack, more than 0 and at most 2000, got "0"',
    ],
    [
      { syncProviders: 'sendgrid', syncRates: 'sendgrid=2001' },
      'context syncRates: sendgrid must be calls per second for the whole stack, more than 0 and at most 2000, got "2001"',
    ],
    [
      { syncProviders: 'sendgrid', syncConcurrency: 'sendgrid=2.5' },
      'context syncConcurrency: sendgrid must be a whole number of calls in flight for the whole stack from 2 (one per worker copy) to 128, got "2.5"',
    ],
    // One in flight cannot be shared between two copies: each would get 0.
    [
      { syncProviders: 'resend', syncConcurrency: 'resend=1' },
      'context syncConcurrency: resend must be a whole number of calls in flight for the whole stack from 2 (one per worker copy) to 128, got "1"',
    ],
    [
      { syncProviders: 'ses', syncRates: 'ses=0.001' },
      'context syncRates: ses=0.001 leaves each of the 2 worker copies 0 calls a second (SYNC_SES_RATE is kept to 0.001): give at least 0.002',
    ],
    [
      { syncProviders: 'ses', syncRates: 'sparkpost=5' },
      'context syncRates: "sparkpost" is not one of ses, sendgrid, postmark, mailgun, resend',
    ],
    [
      { syncProviders: 'ses', syncRates: 'ses=5,sendgrid=50' },
      'context syncRates names sendgrid, which context syncProviders does not list',
    ],
    [{ syncRates: 'ses=5' }, 'context syncRates names ses, which context syncProviders does not list'],
    [{ syncProviders: 'ses', syncConcurrency: 'ses=4,ses=8' }, 'context syncConcurrency names ses twice'],
    [{ syncProviders: 'ses', syncRates: 'ses' }, 'context syncRates entry 1 is not provider=value'],
    [{ syncProviders: 'ses', syncRates: 'ses=5=6' }, 'context syncRates entry 1 is not provider=value'],
  ])('%j', (context, message) => {
    expect(() => synthesizeTemplate(context)).toThrow(message);
  });

  it('a figure in cdk.json may be an array of pairs', () => {
    const s = synthesizeTemplate({ syncProviders: ['ses'], syncRates: ['ses=40'] });
    try {
      expect(environmentOf(s, 'Ratchet sync worker').SYNC_SES_RATE).toBe('20');
    } finally {
      s.cleanup();
    }
  });
});
