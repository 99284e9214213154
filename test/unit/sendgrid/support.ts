/** SendGrid's own fixtures: the official vectors, demo-signed requests, a provider at NOW. */
import type { WebhookProvider } from '../../../lambdas/core/provider.js';
import { sendgridProvider } from '../../../lambdas/core/providers/sendgrid/index.js';
import type { WebhookRequest } from '../../../lambdas/core/request.js';
import { sendgridBatchBody, sendgridDemo, signSendgridBody } from '../../../lib/demo/sendgrid.js';
import { createProvider, NOW_MS, NOW_SECONDS, request } from '../support/provider.js';

export function sendgrid(
  credentials: readonly string[],
  nowMs = NOW_MS,
  settings: Record<string, string | undefined> = {},
): WebhookProvider {
  return createProvider(sendgridProvider, credentials, { nowMs, settings });
}

export const SIGNATURE_HEADER = 'x-twilio-email-event-webhook-signature';
export const TIMESTAMP_HEADER = 'x-twilio-email-event-webhook-timestamp';

export interface Vector {
  publicKey: string;
  signature: string;
  timestamp: string;
  payload: string;
}

// Official vectors from @sendgrid/eventwebhook's spec (see shared/reference/providers/sendgrid.md),
// written out byte for byte rather than rebuilt with JSON.stringify, so a framing mistake shows.

/** A: single event, one line + CRLF. Verifies only with the trailing CRLF. */
export const VECTOR_A: Vector = {
  publicKey:
    'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE83T4O/n84iotIvIW4mdBgQ/7dAfSmpqIM8kF9mN1flpVKS3GRqe62gw+2fNNRaINXvVpiglSI8eNEc6wEA3F+g==',
  signature: 'MEUCIGHQVtGj+Y3LkG9fLcxf3qfI10QysgDWmMOVmxG0u6ZUAiEAyBiXDWzM+uOe5W0JuG+luQAbPIqHh89M15TluLtEZtM=',
  timestamp: '1600112502',
  payload:
    '[{"email":"hello@world.com","event":"dropped","reason":"Bounced Address","sg_event_id":"ZHJvcC0xMDk5NDkxOS1MUnpYbF9OSFN0T0doUTRrb2ZTbV9BLTA","sg_message_id":"LRzXl_NHStOGhQ4kofSm_A.filterdrecv-p3mdw1-756b745b58-kmzbl-18-5F5FC76C-9.0","smtp-id":"<LRzXl_NHStOGhQ4kofSm_A@ismtpd0039p1iad1.sendgrid.net>","timestamp":1600112492}]\r\n',
};

export const VECTOR_B_EVENT_1 =
  '{"email":"invalid@gmail.com","event":"processed","send_at":0,"sg_event_id":"cHJvY2Vzc2VkLTE5OTQyMTEyLXFOd0JMZ1BRUWpXNkRKdktRd1NBYnctMA","sg_message_id":"qNwBLgPQQjW6DJvKQwSAbw.filterdrecv-canary-547b64655b-cw6zx-1-6089EA4A-56.0","smtp-id":"<qNwBLgPQQjW6DJvKQwSAbw@ismtpd0178p1mdw1.sendgrid.net>","timestamp":1619651146}';
export const VECTOR_B_EVENT_2 =
  '{"email":"invalid@gmail.com","event":"bounce","ip":"167.89.101.76","reason":"552 5.2.2 The email account that you tried to reach is over quota and inactive. Please direct the recipient to https://support.google.com/mail/?p=OverQuotaPerm c17si1130468pgv.34 - gsmtp","sg_event_id":"Ym91bmNlLTAtMTk5NDIxMTItcU53QkxnUFFRalc2REp2S1F3U0Fidy0w","sg_message_id":"qNwBLgPQQjW6DJvKQwSAbw.filterdrecv-canary-547b64655b-cw6zx-1-6089EA4A-56.0","smtp-id":"<qNwBLgPQQjW6DJvKQwSAbw@ismtpd0178p1mdw1.sendgrid.net>","status":"5.2.2","timestamp":1619651147,"tls":1,"type":"blocked"}';

/** B: two events separated by `,\r\n`, trailing CRLF, 889 bytes. */
export const VECTOR_B: Vector = {
  publicKey:
    'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEQ4LIFtWztlsF7skFqOncjD1lun4H5w8XOhyOArHW9RcIx/FfEzx6cikC/yPfUvwaX/JScE7Fc9CJD2afQ9Ok3Q==',
  signature: 'MEYCIQC/I4o6vCgqRYrTljjoVWB/GRWNtxeePlLMHr3x9ETeRQIhAIpV+03nREPTTHWSW0wIOA0EoMPdcNgXa70yCaqDJlu5',
  timestamp: '1619651159',
  payload: `[${VECTOR_B_EVENT_1},\r\n${VECTOR_B_EVENT_2}]\r\n`,
};

/** C: legacy spec revision, a bare object (not an array), no trailing CRLF. */
export const VECTOR_C: Vector = {
  publicKey:
    'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEEDr2LjtURuePQzplybdC+u4CwrqDqBaWjcMMsTbhdbcwHBcepxo7yAQGhHPTnlvFYPAZFceEu/1FwCM/QmGUhA==',
  signature: 'MEUCIQCtIHJeH93Y+qpYeWrySphQgpNGNr/U+UyUlBkU6n7RAwIgJTz2C+8a8xonZGi6BpSzoQsbVRamr2nlxFDWYNH2j/0=',
  timestamp: '1588788367',
  payload: '{"category":"example_payload","event":"test_event","message_id":"message_id"}',
};

/** The spec's negative material. */
export const WRONG_KEY =
  'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEqTxd43gyp8IOEto2LdIfjRQrIbsd4SXZkLW6jDutdhXSJCWHw8REntlo7aNDthvj+y7GjUuFDb/R1NGe1OPzpA==';
/** Vector C's signature with one character changed (`NH2j` → `NH3j`). */
export const MUTATED_SIGNATURE =
  'MEUCIQCtIHJeH93Y+qpYeWrySphQgpNGNr/U+UyUlBkU6n7RAwIgJTz2C+8a8xonZGi6BpSzoQsbVRamr2nlxFDWYNH3j/0=';

export function vectorRequest(v: Vector, overrides: Partial<Vector> = {}): WebhookRequest {
  const { signature, timestamp, payload } = { ...v, ...overrides };
  return request(payload, { [SIGNATURE_HEADER]: signature, [TIMESTAMP_HEADER]: timestamp });
}

/** One demo key pair per test file run, and a request signing any body with it at NOW. */
export const CREDENTIALS = sendgridDemo.createCredentials();

export function signedBody(body: string | Buffer): WebhookRequest {
  return request(body, signSendgridBody(body, NOW_SECONDS, CREDENTIALS.signingSecret));
}

export function signedEvents(events: readonly object[]): WebhookRequest {
  return signedBody(sendgridBatchBody(events));
}

export async function receiveSigned(events: readonly object[] | string) {
  const req = typeof events === 'string' ? signedBody(events) : signedEvents(events);
  return (await sendgrid([CREDENTIALS.credential]).receive(req)).events;
}
