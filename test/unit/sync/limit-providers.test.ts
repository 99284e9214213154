/**
 * One rule for `npm start` and `cdk synth`: a rate or a concurrency is given only for a provider sync pushes
 * to. Given for a provider SYNC_PROVIDERS does not list, or for no provider at all, it would limit nothing,
 * silently; both refuse it, naming what was set.
 */
import { describe, expect, it } from 'vitest';
import { listedLimitProvider, unlistedLimitProblems } from '../../../lambdas/core/sync/settings.js';
import { assertStartable } from '../../../lib/local/startup-checks.js';

describe('unlistedLimitProblems (the variables npm start reads)', () => {
  it.each([
    [
      { SYNC_PROVIDERS: 'ses', SYNC_RESEND_RATE: '2' },
      ['SYNC_RESEND_RATE names resend, which SYNC_PROVIDERS does not list'],
    ],
    [
      { SYNC_SENDGRID_CONCURRENCY: '4' },
      ['SYNC_SENDGRID_CONCURRENCY names sendgrid, which SYNC_PROVIDERS does not list'],
    ],
    [
      { SYNC_PROVIDERS: 'ses', SYNC_SPARKPOST_RATE: '5' },
      ['SYNC_SPARKPOST_RATE: "sparkpost" is not one of ses, sendgrid, postmark, mailgun, resend'],
    ],
    [
      { SYNC_PROVIDERS: 'sendgrid', SYNC_SES_RATE: '5', SYNC_SES_CONCURRENCY: '2' },
      [
        'SYNC_SES_RATE names ses, which SYNC_PROVIDERS does not list',
        'SYNC_SES_CONCURRENCY names ses, which SYNC_PROVIDERS does not list',
      ],
    ],
  ])('%j', (settings, problems) => {
    expect(unlistedLimitProblems(settings)).toEqual(problems);
  });

  it('passes a limit for a listed provider, a blank one, and the variables that are no limit', () => {
    expect(
      unlistedLimitProblems({
        SYNC_PROVIDERS: 'ses, SendGrid',
        SYNC_SES_RATE: '5',
        SYNC_SENDGRID_CONCURRENCY: '8',
        SYNC_RESEND_RATE: '',
        SYNC_RETRY_SECONDS: '60',
        SYNC_QUEUE_URL: 'http://127.0.0.1:1/000000000000/ratchet-sync',
      }),
    ).toEqual([]);
    // SYNC_PROVIDERS that does not parse is its own line (syncSettings): not said twice.
    expect(unlistedLimitProblems({ SYNC_PROVIDERS: 'sparkpost', SYNC_SES_RATE: '5' })).toEqual([]);
  });

  it('is the rule synth applies to context syncRates and syncConcurrency, word for word', () => {
    expect(() => listedLimitProvider('resend', ['ses'], 'context syncRates', 'context syncProviders')).toThrow(
      new Error('context syncRates names resend, which context syncProviders does not list'),
    );
    expect(listedLimitProvider('ses', ['ses'], 'context syncRates', 'context syncProviders')).toBe('ses');
  });
});

describe('npm start refuses it before anything starts', () => {
  it('one line naming the variable, beside the others', () => {
    let message = '';
    try {
      assertStartable({ SYNC_PROVIDERS: 'ses', SYNC_RESEND_RATE: '2', SOFT_BOUNCE_LIMIT: '0' }, { port: false });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message.split('\n')).toContain('SYNC_RESEND_RATE names resend, which SYNC_PROVIDERS does not list');
  });
});
