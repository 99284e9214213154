/**
 * A fake of Postmark's Suppressions API, per message stream.
 *
 * Sources:
 * - https://postmarkapp.com/developer/api/suppressions-api
 *   GET /message-streams/{stream_id}/suppressions/dump (filters SuppressionReason, Origin, fromdate,
 *   todate, EmailAddress; the whole list in one answer, no paging) → {Suppressions: [{EmailAddress,
 *   SuppressionReason: HardBounce|SpamComplaint|ManualSuppression, Origin: Recipient|Customer|Admin, CreatedAt}]};
 *   POST /message-streams/{stream_id}/suppressions {Suppressions: [{EmailAddress}]} → 200
 *   {Suppressions: [{EmailAddress, Status: Suppressed|Failed, Message}]}, created as ManualSuppression with
 *   origin Customer (the real API applies it asynchronously, within a minute; this fake at once);
 *   POST /message-streams/{stream_id}/suppressions/delete, same body → Status Deleted|Failed. A
 *   SpamComplaint suppression cannot be deleted: Failed, "You do not have the required authority to
 *   change this suppression." An invalid address: Failed, "An invalid email address was provided."
 * - https://postmarkapp.com/developer/api/overview (auth and errors): `X-Postmark-Server-Token`; a wrong or
 *   missing token is 401 {ErrorCode: 10, Message}; API errors are 422 {ErrorCode, Message} (402 Invalid
 *   JSON, 409 JSON required); 429 is the rate limit (no reset header is published).
 */
import {
  type FakeRequest,
  type FakeResponse,
  isEmail,
  type LoopbackFake,
  parseJson,
  segment,
  startLoopback,
} from './loopback.js';

export type PostmarkReason = 'HardBounce' | 'SpamComplaint' | 'ManualSuppression';

export interface PostmarkEntry {
  email: string;
  reason: PostmarkReason;
  origin: 'Recipient' | 'Customer' | 'Admin';
  /** epoch ms */
  createdAt: number;
}

export interface PostmarkFake extends LoopbackFake {
  readonly serverToken: string;
  readonly streams: readonly string[];
  stream(id: string): PostmarkEntry[];
  seed(stream: string, email: string, reason: PostmarkReason, at?: number): void;
}

export interface PostmarkFakeOptions {
  serverToken?: string;
  streams?: readonly string[];
  now?: () => number;
}

const pmError = (status: number, code: number, message: string): FakeResponse => ({
  status,
  body: { ErrorCode: code, Message: message },
});

export const POSTMARK_SPAM_COMPLAINT_REFUSAL = 'You do not have the required authority to change this suppression.';
const INVALID_ADDRESS = 'An invalid email address was provided.';

export async function startPostmarkFake(options: PostmarkFakeOptions = {}): Promise<PostmarkFake> {
  const serverToken = options.serverToken ?? 'pm-sync-fake-token';
  const now = options.now ?? Date.now;
  const streamIds = options.streams ?? ['outbound', 'broadcast'];
  const streams = new Map<string, Map<string, PostmarkEntry>>(streamIds.map((id) => [id, new Map()]));

  function addresses(body: string): string[] | FakeResponse {
    const parsed = parseJson(body) as { Suppressions?: unknown } | undefined;
    if (!parsed || typeof parsed !== 'object') return pmError(422, 402, 'Invalid JSON');
    if (!Array.isArray(parsed.Suppressions) || parsed.Suppressions.length === 0) {
      return pmError(422, 403, "Incompatible JSON: 'Suppressions' must be a non-empty array.");
    }
    return parsed.Suppressions.map((s: unknown) =>
      s && typeof s === 'object' ? (s as { EmailAddress?: unknown }).EmailAddress : undefined,
    ).map((e: unknown) => (typeof e === 'string' ? e : ''));
  }

  function dump(stream: Map<string, PostmarkEntry>, query: URLSearchParams): FakeResponse {
    const reason = query.get('SuppressionReason');
    const email = query.get('EmailAddress');
    const rows = [...stream.values()]
      .filter((e) => !reason || e.reason === reason)
      .filter((e) => !email || e.email.toLowerCase() === email.toLowerCase())
      .map((e) => ({
        EmailAddress: e.email,
        SuppressionReason: e.reason,
        Origin: e.origin,
        CreatedAt: new Date(e.createdAt).toISOString(),
      }));
    return { status: 200, body: { Suppressions: rows } };
  }

  function route(request: FakeRequest): FakeResponse {
    if (request.headers['x-postmark-server-token'] !== serverToken) {
      return pmError(
        401,
        10,
        'The Server Token you provided in the X-Postmark-Server-Token request header was invalid. Please verify that you are using a valid token.',
      );
    }
    const match = /^\/message-streams\/([^/]+)\/suppressions(\/dump|\/delete)?$/.exec(request.path);
    if (!match) return pmError(404, 0, 'Not found');
    const stream = streams.get(segment(match[1]));
    if (!stream) return pmError(422, 1226, `The message stream for the provided 'ID' was not found.`);
    if (match[2] === '/dump' && request.method === 'GET') return dump(stream, request.query);
    if (request.method !== 'POST' || match[2] === '/dump') return pmError(405, 0, 'Method not allowed');
    if (!request.headers['content-type']?.startsWith('application/json')) return pmError(415, 409, 'JSON required');
    const emails = addresses(request.body);
    if (!Array.isArray(emails)) return emails;
    const results = emails.map((email) => {
      if (!isEmail(email)) return { EmailAddress: email, Status: 'Failed', Message: INVALID_ADDRESS };
      const key = email.toLowerCase();
      if (match[2] === '/delete') {
        if (stream.get(key)?.reason === 'SpamComplaint')
          return { EmailAddress: email, Status: 'Failed', Message: POSTMARK_SPAM_COMPLAINT_REFUSAL };
        stream.delete(key);
        return { EmailAddress: email, Status: 'Deleted', Message: null };
      }
      if (!stream.has(key))
        stream.set(key, { email, reason: 'ManualSuppression', origin: 'Customer', createdAt: now() });
      return { EmailAddress: email, Status: 'Suppressed', Message: null };
    });
    return { status: 200, body: { Suppressions: results } };
  }

  const fake = await startLoopback(route, {
    now,
    faultBody: (status) =>
      status === 429 ? { ErrorCode: 429, Message: 'Rate Limit Exceeded' } : { ErrorCode: 100, Message: 'Maintenance' },
  });

  return Object.assign(fake, {
    serverToken,
    streams: streamIds,
    stream: (id: string) => [...(streams.get(id)?.values() ?? [])].map((e) => ({ ...e })),
    seed: (stream: string, email: string, reason: PostmarkReason, at = now()) =>
      void streams.get(stream)?.set(email.toLowerCase(), {
        email,
        reason,
        origin: reason === 'ManualSuppression' ? 'Customer' : 'Recipient',
        createdAt: at,
      }),
  });
}
