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
 *   Each address is answered on its own, so one Failed address never stops the others of the request.
 *   At most 50 addresses a request (create and delete alike; Postmark's OpenAPI-derived clients say the
 *   same, "Suppress up to 50 addresses on a message stream"). The page names the cap, not the answer to a
 *   longer array: this fake refuses the request as a whole with a 422, as every API error is (overview),
 *   and writes nothing.
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
  pushLog,
  type RecordedPush,
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
  /** Every create the fake took, in order: per stream, the addresses it answered `Suppressed`. */
  pushes(): readonly RecordedPush[];
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
/** https://postmarkapp.com/developer/api/suppressions-api: up to 50 addresses a request. */
export const POSTMARK_MAX_SUPPRESSIONS = 50;

export async function startPostmarkFake(options: PostmarkFakeOptions = {}): Promise<PostmarkFake> {
  const serverToken = options.serverToken ?? 'pm-sync-fake-token';
  const now = options.now ?? Date.now;
  const streamIds = options.streams ?? ['outbound', 'broadcast'];
  const streams = new Map<string, Map<string, PostmarkEntry>>(streamIds.map((id) => [id, new Map()]));
  const pushed = pushLog(now);

  function addresses(body: string): string[] | FakeResponse {
    const parsed = parseJson(body) as { Suppressions?: unknown } | undefined;
    if (!parsed || typeof parsed !== 'object') return pmError(422, 402, 'Invalid JSON');
    if (!Array.isArray(parsed.Suppressions) || parsed.Suppressions.length === 0) {
      return pmError(422, 403, "Incompatible JSON: 'Suppressions' must be a non-empty array.");
    }
    if (parsed.Suppressions.length > POSTMARK_MAX_SUPPRESSIONS)
      return pmError(422, 403, `Incompatible JSON: at most ${POSTMARK_MAX_SUPPRESSIONS} 'Suppressions' per request.`);
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
    if (match[2] !== '/delete')
      pushed.record(
        request.path,
        results.filter((r) => r.Status === 'Suppressed').map((r) => r.EmailAddress),
      );
    return { status: 200, body: { Suppressions: results } };
  }

  const fake = await startLoopback(route, {
    now,
    faultBody: (status) =>
      status === 429 ? { ErrorCode: 429, Message: 'Rate Limit Exceeded' } : { ErrorCode: 100, Message: 'Maintenance' },
  });

  const clearCalls = fake.clearCalls;
  return Object.assign(fake, {
    serverToken,
    clearCalls: () => {
      clearCalls();
      pushed.clear();
    },
    pushes: pushed.pushes,
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
