/** docs/sync.md's table of batched adds: each cap and key as its adapter defines it. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SYNC_MAX_BATCH } from '../../../lambdas/adapters/sync/index.js';
import { MailgunSyncTarget } from '../../../lambdas/adapters/sync/mailgun.js';
import { PostmarkSyncTarget } from '../../../lambdas/adapters/sync/postmark.js';
import { ResendSyncTarget } from '../../../lambdas/adapters/sync/resend.js';
import { SendGridSyncTarget } from '../../../lambdas/adapters/sync/sendgrid.js';
import { SesSyncTarget } from '../../../lambdas/adapters/sync/ses.js';
import type { SyncTarget } from '../../../lambdas/core/sync/target.js';

const doc = readFileSync(new URL('../../../docs/sync.md', import.meta.url), 'utf8');
const section = doc.slice(doc.indexOf('### Batched adds'), doc.indexOf('### On AWS'));
const row = (name: string) => section.split('\n').find((line) => line.startsWith(`| ${name} |`)) ?? '';
const url = 'http://127.0.0.1:1';

describe('docs/sync.md: batched adds', () => {
  const targets: [string, SyncTarget][] = [
    ['SendGrid', new SendGridSyncTarget({ apiKey: 'k', apiUrl: url })],
    ['Postmark', new PostmarkSyncTarget({ serverToken: 'k', apiUrl: url, streams: ['outbound'] })],
    ['Mailgun', new MailgunSyncTarget({ apiKey: 'k', apiUrl: url, domains: ['mg.example.com'] })],
    ['Resend', new ResendSyncTarget({ apiKey: 'k', apiUrl: url })],
  ];

  it.each(targets)('%s: its cap and its global key', (name, target) => {
    expect(row(name)).toContain(`**${target.maxBatch!.toLocaleString('en-US')}**`);
    const key = target.batchKey!({ op: 'suppress', email: 'a@example.com', reason: 'unsubscribe' })!;
    expect(row(name)).toContain(`\`${key}\``);
  });

  it('the capacity model reads the same caps (SYNC_MAX_BATCH), SES one address a call', () => {
    const byName = Object.fromEntries(targets.map(([, t]) => [t.provider, t.maxBatch]));
    expect(SYNC_MAX_BATCH).toEqual({ ses: 1, ...byName });
  });

  it('SES takes no batch, and the doc says so', () => {
    const ses: SyncTarget = new SesSyncTarget({ region: 'us-east-1', endpoint: url });
    expect(ses.applyMany).toBeUndefined();
    expect(ses.maxBatch).toBeUndefined();
    expect(section).toContain('SES has none');
  });
});
