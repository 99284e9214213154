/** The provider registry: keyed by the names the definitions give themselves, in one order everywhere. */
import { describe, expect, it } from 'vitest';
import { findProvider, PROVIDER_NAMES, PROVIDERS, type ProviderName } from '../../../lambdas/core/providers/index.js';

describe('provider registry', () => {
  it('keys every definition by its own name, in the registry order', () => {
    expect(PROVIDERS.map((p) => p.name)).toEqual(PROVIDER_NAMES);
    expect(PROVIDER_NAMES).toEqual(['ses', 'sendgrid', 'mailgun', 'postmark', 'standard', 'generic']);
  });

  it('finds each registered provider by name, and nothing else', () => {
    for (const name of PROVIDER_NAMES) expect(findProvider(name)?.name).toBe(name);
    expect(findProvider('standard-webhooks')).toBeUndefined();
  });

  it('types the names as literals (so a per-provider record missing one does not compile)', () => {
    // @ts-expect-error: not a registered provider name; if ProviderName widened to string this line would fail tsc.
    const unknown: ProviderName = 'not-a-provider';
    expect(PROVIDER_NAMES).not.toContain(unknown);
  });
});
