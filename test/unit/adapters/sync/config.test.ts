/** The SYNC_* reader: one line per problem, naming the variable; defaults as documented. */
import { describe, expect, it } from 'vitest';
import { readSyncConfig } from '../../../../lambdas/adapters/sync/config.js';
import { createSyncTargets } from '../../../../lambdas/adapters/sync/index.js';

const FULL = {
  SYNC_PROVIDERS: 'ses, sendgrid,postmark,mailgun,resend',
  AWS_REGION: 'eu-west-1',
  SENDGRID_API_KEY: 'SG.k',
  POSTMARK_SERVER_TOKEN: 'pm-t',
  MAILGUN_API_KEY: 'mg-k',
  MAILGUN_DOMAINS: 'mg.example.com, mg2.example.com',
  RESEND_API_KEY: 're_k',
};

describe('readSyncConfig', () => {
  it('syncs nothing when SYNC_PROVIDERS is unset', () => {
    expect(readSyncConfig({})).toEqual({ ok: true, config: {} });
    expect(createSyncTargets({})).toEqual([]);
  });

  it('reads every provider with the documented defaults', () => {
    expect(readSyncConfig(FULL)).toEqual({
      ok: true,
      config: {
        ses: { region: 'eu-west-1' },
        sendgrid: { apiKey: 'SG.k', apiUrl: 'https://api.sendgrid.com' },
        postmark: { serverToken: 'pm-t', apiUrl: 'https://api.postmarkapp.com', streams: ['outbound'] },
        mailgun: { apiKey: 'mg-k', apiUrl: 'https://api.mailgun.net', domains: ['mg.example.com', 'mg2.example.com'] },
        resend: { apiKey: 're_k', apiUrl: 'https://api.resend.com' },
      },
    });
  });

  it('takes the overrides (EU Mailgun, streams, a local SES endpoint with the same environment’s credentials)', () => {
    const result = readSyncConfig({
      ...FULL,
      MAILGUN_API_URL: 'https://api.eu.mailgun.net/',
      POSTMARK_STREAMS: 'outbound,broadcast',
      SES_API_ENDPOINT: 'http://127.0.0.1:4566',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    });
    expect(result.ok && result.config.mailgun?.apiUrl).toBe('https://api.eu.mailgun.net');
    expect(result.ok && result.config.postmark?.streams).toEqual(['outbound', 'broadcast']);
    expect(result.ok && result.config.ses).toEqual({
      region: 'eu-west-1',
      endpoint: 'http://127.0.0.1:4566',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
  });

  it('names each missing variable on its own line, and never echoes a key', () => {
    const result = readSyncConfig({
      SYNC_PROVIDERS: 'ses,sendgrid,postmark,mailgun,resend',
      MAILGUN_API_KEY: 'mg-secret',
    });
    expect(result).toEqual({
      ok: false,
      problems: [
        'SYNC_PROVIDERS includes ses but AWS_REGION is not set',
        'SYNC_PROVIDERS includes sendgrid but SENDGRID_API_KEY is not set',
        'SYNC_PROVIDERS includes postmark but POSTMARK_SERVER_TOKEN is not set',
        'SYNC_PROVIDERS includes mailgun but MAILGUN_DOMAINS is not set',
        'SYNC_PROVIDERS includes resend but RESEND_API_KEY is not set',
      ],
    });
    expect(JSON.stringify(result)).not.toContain('mg-secret');
  });

  it('requireSet false (a caller that never calls a provider): nothing missing is a problem, a value set wrong still is', () => {
    const providers = 'ses,sendgrid,postmark,mailgun,resend';
    expect(readSyncConfig({ SYNC_PROVIDERS: providers }, { requireSet: false })).toMatchObject({ ok: true });
    expect(
      readSyncConfig(
        { SYNC_PROVIDERS: providers, POSTMARK_STREAMS: ' , ', MAILGUN_DOMAINS: 'not a domain', RESEND_API_URL: 'x' },
        { requireSet: false },
      ),
    ).toEqual({
      ok: false,
      problems: [
        'POSTMARK_STREAMS names no stream',
        'MAILGUN_DOMAINS includes "not a domain", which is not a domain name',
        'RESEND_API_URL is not an http(s) URL',
      ],
    });
  });

  it('refuses an unknown provider, a bad URL and a bad domain', () => {
    const result = readSyncConfig({
      ...FULL,
      SYNC_PROVIDERS: 'sendgrid,sparkpost,mailgun',
      SENDGRID_API_URL: 'ftp://x',
      MAILGUN_DOMAINS: 'mg.example.com,not a domain',
    });
    expect(result).toEqual({
      ok: false,
      problems: [
        'SYNC_PROVIDERS includes "sparkpost", which is not one of ses, sendgrid, postmark, mailgun, resend',
        'SENDGRID_API_URL is not an http(s) URL',
        'MAILGUN_DOMAINS includes "not a domain", which is not a domain name',
      ],
    });
  });

  it('createSyncTargets builds one target per configured provider, in the port’s order', () => {
    const result = readSyncConfig(FULL);
    if (!result.ok) throw new Error('config');
    expect(createSyncTargets(result.config).map((t) => t.provider)).toEqual([
      'ses',
      'sendgrid',
      'postmark',
      'mailgun',
      'resend',
    ]);
    expect(createSyncTargets({ resend: result.config.resend }).map((t) => t.provider)).toEqual(['resend']);
  });
});
