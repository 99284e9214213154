/**
 * Builds one SyncTarget per configured provider, in SYNC_PROVIDER_NAMES order. Build once per process
 * (the SES client, like every SDK client, lives at module scope in the handler).
 */
import type { SyncProviderName, SyncTarget } from '../../core/sync/target.js';
import type { SyncConfig } from './config.js';
import type { HttpDeps } from './http.js';
import { MAX_RECORDS as MAILGUN_MAX, MailgunSyncTarget } from './mailgun.js';
import { MAX_SUPPRESSIONS as POSTMARK_MAX, PostmarkSyncTarget } from './postmark.js';
import { MAX_EMAILS as RESEND_MAX, ResendSyncTarget } from './resend.js';
import { MAX_RECIPIENTS as SENDGRID_MAX, SendGridSyncTarget } from './sendgrid.js';
import { type SesSyncDeps, SesSyncTarget } from './ses.js';

export { readSyncConfig, SYNC_DEFAULT_URLS, SYNC_VARIABLES, type SyncConfig, type SyncConfigResult } from './config.js';
export { redactEmail } from './http.js';
export { MailgunSyncTarget, PostmarkSyncTarget, ResendSyncTarget, SendGridSyncTarget, SesSyncTarget };

/**
 * The most adds one request carries, by provider (each target's `maxBatch`, cited beside it; SES takes one
 * address a call). For the capacity model, which counts what a request carries at a busy provider.
 */
export const SYNC_MAX_BATCH: Readonly<Record<SyncProviderName, number>> = {
  ses: 1,
  sendgrid: SENDGRID_MAX,
  postmark: POSTMARK_MAX,
  mailgun: MAILGUN_MAX,
  resend: RESEND_MAX,
};

export interface SyncTargetDeps extends HttpDeps {
  /** Page size for the paged lists (tests use small pages); each provider's maximum otherwise. */
  readonly pageSize?: number;
  readonly ses?: Pick<SesSyncDeps, 'client'>;
}

export function createSyncTargets(config: SyncConfig, deps: SyncTargetDeps = {}): SyncTarget[] {
  const { pageSize, ses, ...http } = deps;
  const paged = pageSize !== undefined ? { ...http, pageLimit: pageSize } : http;
  const builders: Record<SyncProviderName, () => SyncTarget | undefined> = {
    ses: () =>
      config.ses &&
      new SesSyncTarget(config.ses, {
        ...(http.now ? { now: http.now } : {}),
        ...(http.timeoutMs !== undefined ? { timeoutMs: http.timeoutMs } : {}),
        ...(http.rateLimitWaits !== undefined ? { rateLimitWaits: http.rateLimitWaits } : {}),
        ...(http.rateLimitMaxWaitMs !== undefined ? { rateLimitMaxWaitMs: http.rateLimitMaxWaitMs } : {}),
        ...(http.onRateLimitWait ? { onRateLimitWait: http.onRateLimitWait } : {}),
        ...(http.sleep ? { sleep: http.sleep } : {}),
        ...(pageSize !== undefined ? { pageSize } : {}),
        ...ses,
      }),
    sendgrid: () => config.sendgrid && new SendGridSyncTarget(config.sendgrid, paged),
    postmark: () => config.postmark && new PostmarkSyncTarget(config.postmark, http),
    mailgun: () => config.mailgun && new MailgunSyncTarget(config.mailgun, paged),
    resend: () => config.resend && new ResendSyncTarget(config.resend, paged),
  };
  return (Object.keys(builders) as SyncProviderName[])
    .map((name) => builders[name]())
    .filter((t): t is SyncTarget => t !== undefined);
}
