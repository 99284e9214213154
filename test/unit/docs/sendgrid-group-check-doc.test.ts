/** docs/sync.md and docs/sync-providers.md quote the SendGrid group check's window from where it is defined. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SendGridSyncTarget } from '../../../lambdas/adapters/sync/sendgrid.js';
import { SENDGRID_GROUP_CHECK_MS } from '../../../lambdas/adapters/sync/sendgrid-groups.js';

const read = (name: string) =>
  readFileSync(new URL(`../../../docs/${name}`, import.meta.url), 'utf8').replace(/\s+/g, ' ');

describe('docs: the SendGrid group check', () => {
  const minutes = `${SENDGRID_GROUP_CHECK_MS / 60_000} minutes`;

  it('the adapter uses the window the docs name', () => {
    expect(new SendGridSyncTarget({ apiKey: 'k', apiUrl: 'http://127.0.0.1:1' }).groupCheckMs).toBe(
      SENDGRID_GROUP_CHECK_MS,
    );
  });

  it('sync-providers.md: the hazard, the check, its window and the residual risk', () => {
    const doc = read('sync-providers.md');
    const section = doc.slice(doc.indexOf('#### A topic opt-out into a group that does not exist'));
    expect(section).toContain('"If you attempt to add suppressions to a group that has been deleted or does not exist');
    expect(section).toContain(`kept for **${minutes}** per target`);
    expect(section).toContain('`SENDGRID_GROUP_CHECK_MS`');
    expect(section).toContain(`(up to ${minutes})`);
    expect(section).toContain('**Residual risk**');
    expect(doc).toContain(`every group of the account (at most 200, unpaged), kept ${minutes}`);
  });

  it('sync.md: topic scopes say it, with the same window', () => {
    const doc = read('sync.md');
    expect(doc).toContain(`(\`GET /v3/asm/groups\`, kept ${minutes} per worker process)`);
    expect(doc).toContain(`a group deleted within those ${minutes} is the residual risk`);
  });
});
