/** `npm start -- --help` names the variable that turns sync on, and where the rest are described. */
import { describe, expect, it } from 'vitest';
import { SYNC_VARIABLES } from '../../../lambdas/core/sync/settings.js';
import { startUsage } from '../../../lib/local/usage.js';

describe('npm start --help', () => {
  it('names SYNC_PROVIDERS and sends the reader to docs/configuration.md, where every variable is', () => {
    const usage = startUsage();
    expect(usage).toMatch(new RegExp(`^ {2}${SYNC_VARIABLES.providers} +\\S`, 'm'));
    expect(usage).toContain('docs/configuration.md');
  });
});
