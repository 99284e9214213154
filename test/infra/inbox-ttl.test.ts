/** `cdk synth` refuses an inbox TTL that a signature window outlives (the positive case is every other synth). */
import { App } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { RatchetStack } from '../../lib/stack.js';

describe('inbox TTL versus signature windows', () => {
  it.each([1, '1'])(
    'refuses context inboxTtlDays=%j (SendGrid retries for 24 h), naming the variables',
    (inboxTtlDays) => {
      const app = new App({ context: { inboxTtlDays } });
      expect(() => new RatchetStack(app, 'RatchetTtlTest')).toThrow(
        /INBOX_TTL_DAYS \(context inboxTtlDays\) is 1 days.*sendgrid \(SENDGRID_TOLERANCE_SECONDS/,
      );
    },
  );
});
