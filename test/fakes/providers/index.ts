/**
 * All five provider fakes at once, for the sync integration tests: each on its own loopback port, with
 * its own key, its state accessors, and the environment that points Ratchet's sync at them.
 */
import { type MailgunFake, type MailgunFakeOptions, startMailgunFake } from './mailgun.js';
import { type PostmarkFake, type PostmarkFakeOptions, startPostmarkFake } from './postmark.js';
import { type ResendFake, type ResendFakeOptions, startResendFake } from './resend.js';
import { type SendGridFake, type SendGridFakeOptions, startSendGridFake } from './sendgrid.js';
import { type SesFake, type SesFakeOptions, startSesFake } from './ses.js';

export type { MailgunFake, PostmarkFake, ResendFake, SendGridFake, SesFake };
export { startMailgunFake, startPostmarkFake, startResendFake, startSendGridFake, startSesFake };

export interface ProviderFakes {
  readonly ses: SesFake;
  readonly sendgrid: SendGridFake;
  readonly postmark: PostmarkFake;
  readonly mailgun: MailgunFake;
  readonly resend: ResendFake;
  /**
   * The variables that configure sync against these fakes (SYNC_PROVIDERS, the keys, the *_API_URL
   * overrides, SES_API_ENDPOINT, AWS_REGION and static AWS credentials for the SES client). Postmark's
   * global streams are `outbound` only; `broadcast` exists too, for a topic alias.
   */
  readonly env: Readonly<Record<string, string>>;
  close(): Promise<void>;
}

export interface ProviderFakesOptions {
  ses?: SesFakeOptions;
  sendgrid?: SendGridFakeOptions;
  postmark?: PostmarkFakeOptions;
  mailgun?: MailgunFakeOptions;
  resend?: ResendFakeOptions;
}

export async function startProviderFakes(options: ProviderFakesOptions = {}): Promise<ProviderFakes> {
  const [ses, sendgrid, postmark, mailgun, resend] = await Promise.all([
    startSesFake(options.ses),
    startSendGridFake(options.sendgrid),
    startPostmarkFake(options.postmark),
    startMailgunFake(options.mailgun),
    startResendFake(options.resend),
  ]);
  const env = {
    SYNC_PROVIDERS: 'ses,sendgrid,postmark,mailgun,resend',
    AWS_REGION: ses.region,
    SES_API_ENDPOINT: ses.url,
    AWS_ACCESS_KEY_ID: ses.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: ses.credentials.secretAccessKey,
    SENDGRID_API_KEY: sendgrid.apiKey,
    SENDGRID_API_URL: sendgrid.url,
    POSTMARK_SERVER_TOKEN: postmark.serverToken,
    POSTMARK_API_URL: postmark.url,
    POSTMARK_STREAMS: postmark.streams[0] ?? 'outbound',
    MAILGUN_API_KEY: mailgun.apiKey,
    MAILGUN_API_URL: mailgun.url,
    MAILGUN_DOMAINS: mailgun.domains.join(','),
    RESEND_API_KEY: resend.apiKey,
    RESEND_API_URL: resend.url,
  };
  return {
    ses,
    sendgrid,
    postmark,
    mailgun,
    resend,
    env,
    async close() {
      await Promise.all([ses.close(), sendgrid.close(), postmark.close(), mailgun.close(), resend.close()]);
    },
  };
}
