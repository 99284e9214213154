/**
 * unlistedLimitProblems reads SYNC_<NAME>_RATE and SYNC_<NAME>_CONCURRENCY as `npm start` gets them: a
 * variable that is absent from the environment, unset or blank sets no limit, so it names no provider.
 */
import { describe, expect, it } from 'vitest';
import { unlistedLimitProblems } from '../../../lambdas/core/sync/settings.js';

describe('unlistedLimitProblems: a limit set to nothing', () => {
  it('an unset variable (an undefined value) or one of spaces is skipped; one set beside them is not', () => {
    expect(
      unlistedLimitProblems({
        SYNC_PROVIDERS: 'ses',
        SYNC_SENDGRID_RATE: undefined,
        SYNC_POSTMARK_CONCURRENCY: '  ',
        SYNC_MAILGUN_RATE: ' \t',
        SYNC_RESEND_RATE: '2',
      }),
    ).toStrictEqual(['SYNC_RESEND_RATE names resend, which SYNC_PROVIDERS does not list']);
  });
});
