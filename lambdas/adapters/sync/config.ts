/**
 * Reads which providers sync pushes to, and their settings, from an environment: a pure function of the
 * map it is given (never process.env itself), so `npm start` and `cdk synth` refuse the same mistakes
 * with the same lines. Each problem is one line naming the variable; keys are never echoed.
 *
 * Keys: locally from the variables below; on AWS the caller reads Secrets Manager `<prefix>/sync/<provider>`
 * and passes them in the same names, so this reader is the only place that knows them.
 */
import { SYNC_PROVIDER_NAMES, type SyncProviderName } from '../../core/sync/target.js';
import type { MailgunSyncConfig } from './mailgun.js';
import type { PostmarkSyncConfig } from './postmark.js';
import type { ResendSyncConfig } from './resend.js';
import type { SendGridSyncConfig } from './sendgrid.js';
import type { SesSyncConfig } from './ses.js';

export interface SyncConfig {
  readonly ses?: SesSyncConfig;
  readonly sendgrid?: SendGridSyncConfig;
  readonly postmark?: PostmarkSyncConfig;
  readonly mailgun?: MailgunSyncConfig;
  readonly resend?: ResendSyncConfig;
}

export type SyncConfigResult =
  | { readonly ok: true; readonly config: SyncConfig }
  | { readonly ok: false; readonly problems: readonly string[] };

/** Every variable this reader looks at (for the runtime's list of declared variables). */
export const SYNC_VARIABLES = [
  'SYNC_PROVIDERS',
  'AWS_REGION',
  'SES_API_ENDPOINT',
  'SENDGRID_API_KEY',
  'SENDGRID_API_URL',
  'POSTMARK_SERVER_TOKEN',
  'POSTMARK_STREAMS',
  'POSTMARK_API_URL',
  'MAILGUN_API_KEY',
  'MAILGUN_DOMAINS',
  'MAILGUN_API_URL',
  'RESEND_API_KEY',
  'RESEND_API_URL',
] as const;

export const SYNC_DEFAULT_URLS = {
  sendgrid: 'https://api.sendgrid.com',
  postmark: 'https://api.postmarkapp.com',
  mailgun: 'https://api.mailgun.net',
  resend: 'https://api.resend.com',
} as const;

/** The variable that points each HTTP provider's adapter at another base URL (an EU region, tests, a fake). */
export const SYNC_URL_VARIABLE = {
  sendgrid: 'SENDGRID_API_URL',
  postmark: 'POSTMARK_API_URL',
  mailgun: 'MAILGUN_API_URL',
  resend: 'RESEND_API_URL',
} as const satisfies Record<keyof typeof SYNC_DEFAULT_URLS, (typeof SYNC_VARIABLES)[number]>;

type Env = Readonly<Record<string, string | undefined>>;

const list = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
const set = (value: string | undefined): value is string => value !== undefined && value.trim() !== '';

export interface ReadSyncConfigOptions {
  /**
   * Whether a missing key or required setting is a problem (default true). False for a caller that
   * never calls a provider (the CLI's `sync status`, its fast path): only a value set wrong is one, so
   * an operator on AWS, where the keys live in Secrets Manager, needs only SYNC_PROVIDERS.
   */
  readonly requireSet?: boolean;
}

export function readSyncConfig(env: Env, options: ReadSyncConfigOptions = {}): SyncConfigResult {
  const requireSet = options.requireSet ?? true;
  const problems: string[] = [];
  const names = list(env.SYNC_PROVIDERS).map((n) => n.toLowerCase());
  const unknown = names.filter((n) => !(SYNC_PROVIDER_NAMES as readonly string[]).includes(n));
  for (const name of unknown) {
    problems.push(`SYNC_PROVIDERS includes "${name}", which is not one of ${SYNC_PROVIDER_NAMES.join(', ')}`);
  }
  const chosen = new Set(
    names.filter((n): n is SyncProviderName => (SYNC_PROVIDER_NAMES as readonly string[]).includes(n)),
  );

  const missing = (provider: SyncProviderName, variable: string) => {
    if (requireSet) problems.push(`SYNC_PROVIDERS includes ${provider} but ${variable} is not set`);
  };
  const url = (variable: string, fallback: string): string => {
    const value = set(env[variable]) ? env[variable]!.trim() : fallback;
    let parsed: URL | undefined;
    try {
      parsed = new URL(value);
    } catch {
      parsed = undefined;
    }
    if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:'))
      problems.push(`${variable} is not an http(s) URL`);
    return value.replace(/\/+$/, '');
  };
  const key = (provider: SyncProviderName, variable: string): string => {
    if (!set(env[variable])) missing(provider, variable);
    return (env[variable] ?? '').trim();
  };

  const config: {
    -readonly [K in keyof SyncConfig]: SyncConfig[K];
  } = {};
  if (chosen.has('ses')) {
    if (!set(env.AWS_REGION)) missing('ses', 'AWS_REGION');
    const endpoint = set(env.SES_API_ENDPOINT) ? url('SES_API_ENDPOINT', '') : undefined;
    // A local endpoint (a fake, LocalStack) takes the credentials from the same environment, not from a profile.
    const credentials =
      endpoint && set(env.AWS_ACCESS_KEY_ID) && set(env.AWS_SECRET_ACCESS_KEY)
        ? { accessKeyId: env.AWS_ACCESS_KEY_ID.trim(), secretAccessKey: env.AWS_SECRET_ACCESS_KEY.trim() }
        : undefined;
    config.ses = {
      region: (env.AWS_REGION ?? '').trim(),
      ...(endpoint ? { endpoint } : {}),
      ...(credentials ? { credentials } : {}),
    };
  }
  if (chosen.has('sendgrid')) {
    config.sendgrid = {
      apiKey: key('sendgrid', 'SENDGRID_API_KEY'),
      apiUrl: url(SYNC_URL_VARIABLE.sendgrid, SYNC_DEFAULT_URLS.sendgrid),
    };
  }
  if (chosen.has('postmark')) {
    const streams = set(env.POSTMARK_STREAMS) ? list(env.POSTMARK_STREAMS) : ['outbound'];
    if (streams.length === 0) problems.push('POSTMARK_STREAMS names no stream');
    config.postmark = {
      serverToken: key('postmark', 'POSTMARK_SERVER_TOKEN'),
      apiUrl: url(SYNC_URL_VARIABLE.postmark, SYNC_DEFAULT_URLS.postmark),
      streams,
    };
  }
  if (chosen.has('mailgun')) {
    const domains = list(env.MAILGUN_DOMAINS);
    if (domains.length === 0) missing('mailgun', 'MAILGUN_DOMAINS');
    for (const domain of domains) {
      if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/i.test(domain)) {
        problems.push(`MAILGUN_DOMAINS includes "${domain}", which is not a domain name`);
      }
    }
    config.mailgun = {
      apiKey: key('mailgun', 'MAILGUN_API_KEY'),
      apiUrl: url(SYNC_URL_VARIABLE.mailgun, SYNC_DEFAULT_URLS.mailgun),
      domains,
    };
  }
  if (chosen.has('resend')) {
    config.resend = {
      apiKey: key('resend', 'RESEND_API_KEY'),
      apiUrl: url(SYNC_URL_VARIABLE.resend, SYNC_DEFAULT_URLS.resend),
    };
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, config };
}
