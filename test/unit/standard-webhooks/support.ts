/** Standard Webhooks' own fixtures: secrets, the official vectors, Resend-shaped bodies, signed requests. */
import type { WebhookProvider } from '../../../lambdas/core/provider.js';
import { standardWebhooksProvider } from '../../../lambdas/core/providers/standard-webhooks/index.js';
import type { WebhookRequest } from '../../../lambdas/core/request.js';
import { signStandardBody } from '../../../lib/demo/standard-webhooks.js';
import { createProvider, NOW_MS, NOW_SECONDS, request } from '../support/provider.js';

export const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
export const OTHER_SECRET = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';
export const MSG_ID = 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W';

export function standard(
  credentials: readonly string[] = [SECRET],
  nowMs = NOW_MS,
  settings: Record<string, string | undefined> = {},
): WebhookProvider {
  return createProvider(standardWebhooksProvider, credentials, { nowMs, settings });
}

/** A Resend-shaped body. */
export function resendBody(
  type: string,
  data: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): string {
  return JSON.stringify({
    type,
    created_at: '2025-01-15T11:59:58.123Z',
    data: {
      email_id: '56761188-7520-42d8-8898-ff6fc54ce618',
      from: 'Acme <onboarding@resend.dev>',
      to: ['delivered@resend.dev'],
      subject: 'Sending this example',
      created_at: '2025-01-15T11:58:00.000Z',
      ...data,
    },
    ...extra,
  });
}

/** Signed with SECRET at NOW, webhook-* headers. */
export function signed(body: string, id = MSG_ID, timestamp = NOW_SECONDS, secret = SECRET): WebhookRequest {
  return request(body, signStandardBody(secret, id, timestamp, body));
}

/** Official vectors (standard-webhooks.md §5), byte for byte. */
export const VECTOR_1 = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: '1614265330',
  payload: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

export const VECTOR_2 = {
  secret: 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD',
  id: 'msg_27UH4WbU6Z5A5EzD8u03UvzRbpk',
  timestamp: '1649367553',
  payload: '{"email":"test@example.com","username":"test_user"}',
  signature: 'v1,tZ1I4/hDygAJgO5TYxiSd6Sd0kDW6hPenDe+bTa3Kkw=',
};

export type Vector = typeof VECTOR_1;

export function vectorHeaders(v: Vector, signature = v.signature): Record<string, string> {
  return { 'webhook-id': v.id, 'webhook-timestamp': v.timestamp, 'webhook-signature': signature };
}
