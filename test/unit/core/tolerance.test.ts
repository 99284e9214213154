/** toleranceSetting: the window, declaration and signatureWindow four providers share. */
import { describe, expect, it } from 'vitest';
import { genericProvider } from '../../../lambdas/core/providers/generic/index.js';
import { mailgunProvider } from '../../../lambdas/core/providers/mailgun/index.js';
import { sendgridProvider } from '../../../lambdas/core/providers/sendgrid/index.js';
import { standardWebhooksProvider } from '../../../lambdas/core/providers/standard-webhooks/index.js';
import { toleranceSetting } from '../../../lambdas/core/providers/tolerance.js';

const SAME = 'How old a signed timestamp may be, whole seconds up to 48 h; ahead, the same capped at 5 min';

describe('toleranceSetting', () => {
  // Built inside each test, never at collection time, so a mutant in toleranceSetting is live when it runs.
  const make = () => toleranceSetting('X_TOLERANCE_SECONDS', 7200);

  it('declares its one variable, with the default in seconds and, when whole hours, in hours', () => {
    expect(make().setting).toEqual({ variable: 'X_TOLERANCE_SECONDS', describe: `${SAME} (default 7200, 2 h)` });
    expect(toleranceSetting('Y', 3600).setting.describe).toBe(`${SAME} (default 3600, 1 h)`);
    expect(toleranceSetting('Y', 5400).setting.describe).toBe(`${SAME} (default 5400)`);
    expect(toleranceSetting('Y', 300).setting.describe).toBe(`${SAME} (default 300)`);
  });

  it('reads its own variable (unset: the default), the future side capped at 5 minutes', () => {
    const t = make();
    expect(t.window({})).toEqual({ maxAgeMs: 7_200_000, maxFutureMs: 300_000 });
    expect(t.window({ X_TOLERANCE_SECONDS: '60', OTHER: '5' })).toEqual({ maxAgeMs: 60_000, maxFutureMs: 60_000 });
    expect(() => t.window({ X_TOLERANCE_SECONDS: '0' })).toThrow(
      /X_TOLERANCE_SECONDS must be a whole number of seconds between 1 and 172800/,
    );
  });

  it('signatureWindow is that window and names the variable it read', () => {
    expect(make().signatureWindow({ X_TOLERANCE_SECONDS: '90' })).toEqual({
      window: { maxAgeMs: 90_000, maxFutureMs: 90_000 },
      variables: ['X_TOLERANCE_SECONDS'],
    });
  });
});

describe('the four providers that use it keep their declarations word for word', () => {
  it.each([
    [sendgridProvider, 'SENDGRID_TOLERANCE_SECONDS', '90000, 25 h', 90_000_000],
    [mailgunProvider, 'MAILGUN_TOLERANCE_SECONDS', '32400, 9 h', 32_400_000],
    [standardWebhooksProvider, 'STANDARD_WEBHOOK_TOLERANCE_SECONDS', '300', 300_000],
    [genericProvider, 'GENERIC_WEBHOOK_TOLERANCE_SECONDS', '300', 300_000],
  ] as const)('%#: %s', (provider, variable, shown, maxAgeMs) => {
    expect(provider.settings).toEqual([{ variable, describe: `${SAME} (default ${shown})` }]);
    expect(provider.signatureWindow!({})).toEqual({
      window: { maxAgeMs, maxFutureMs: 300_000 },
      variables: [variable],
    });
  });
});
