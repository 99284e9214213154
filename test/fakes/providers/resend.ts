/**
 * A fake of Resend's team suppression list (the Suppressions API; the reference marks it "private beta,
 * APIs might change before GA").
 *
 * Sources:
 * - https://resend.com/docs/api-reference/suppressions/add-suppression: POST /suppressions {email}
 *   → {object: "suppression", id}.
 * - https://resend.com/docs/api-reference/suppressions/add-batch-suppressions: POST /suppressions/batch/add
 *   {emails} ("Must contain between 1 and 100 email addresses") → {data: [{object: "suppression", id}]},
 *   one per address in order; an address already suppressed answers its existing entry (the Ruby SDK's
 *   note on the same call: "come back with their existing suppression instead of failing"). The page
 *   shows no per-address failure, so an address the fake cannot read refuses the request as a whole (400
 *   validation_error, as the single add), as does a count outside 1 to 100 (422), and nothing is written.
 * - https://resend.com/docs/api-reference/suppressions/list-suppressions: GET /suppressions →
 *   {object: "list", has_more, data: [{object, id, email, origin: bounce|complaint|manual, source_id, created_at}]}.
 * - https://resend.com/docs/api-reference/suppressions/get-suppression: GET /suppressions/{id or email} →
 *   {object: "suppression", id, email, origin, source_id, created_at}; 404 not_found "Suppression not found"
 *   when the address or id is not suppressed.
 * - https://resend.com/docs/api-reference/suppressions/remove-suppression: DELETE /suppressions/{id or email}
 *   → {object: "suppression", id, deleted: true}.
 * - https://resend.com/docs/api-reference/pagination: cursor paging with `limit` (1 to 100, default 20)
 *   and `after` (the id of the last item of the previous page, excluded), answers carry `has_more`.
 * - https://resend.com/docs/api-reference/errors: {statusCode, name, message}; missing_api_key 401,
 *   invalid_api_key 403, validation_error 400 / 422 (missing_required_field), not_found 404.
 * - https://resend.com/docs/api-reference/rate-limit: 429 rate_limit_exceeded; headers ratelimit-limit,
 *   ratelimit-remaining, ratelimit-reset (seconds until the window resets) and retry-after (seconds).
 * The reference does not say what adding an address twice answers; this fake answers the existing entry.
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

export interface ResendEntry {
  id: string;
  email: string;
  origin: 'bounce' | 'complaint' | 'manual';
  /** epoch ms */
  createdAt: number;
}

export interface ResendFake extends LoopbackFake {
  readonly apiKey: string;
  entries(): ResendEntry[];
  seed(email: string, origin: ResendEntry['origin'], at?: number): void;
  /** Every add the fake took, in order, single or batch: the addresses of the request. */
  pushes(): readonly RecordedPush[];
}

export interface ResendFakeOptions {
  apiKey?: string;
  now?: () => number;
}

/** https://resend.com/docs/api-reference/suppressions/add-batch-suppressions: 1 to 100 addresses. */
export const RESEND_MAX_BATCH = 100;

const rsError = (statusCode: number, name: string, message: string): FakeResponse => ({
  status: statusCode,
  body: { statusCode, name, message },
});

export async function startResendFake(options: ResendFakeOptions = {}): Promise<ResendFake> {
  const apiKey = options.apiKey ?? 're_sync_fake_key';
  const now = options.now ?? Date.now;
  /** Insertion order is list order (newest last here; the API lists newest first). */
  const table = new Map<string, ResendEntry>();
  let seq = 0;
  const newId = () => `00000000-0000-4000-8000-${String((seq += 1)).padStart(12, '0')}`;
  const pushed = pushLog(now);

  const add = (email: string, origin: ResendEntry['origin'], at: number): ResendEntry => {
    const existing = table.get(email.toLowerCase());
    if (existing) return existing;
    const entry = { id: newId(), email, origin, createdAt: at };
    table.set(email.toLowerCase(), entry);
    return entry;
  };

  function list(query: URLSearchParams): FakeResponse {
    const limit = query.has('limit') ? Number(query.get('limit')) : 20;
    if (!Number.isInteger(limit) || limit < 1 || limit > 100)
      return rsError(422, 'validation_error', 'The `limit` must be between 1 and 100.');
    const all = [...table.values()].reverse();
    let start = 0;
    const after = query.get('after');
    if (after !== null) {
      const index = all.findIndex((e) => e.id === after);
      if (index < 0) return rsError(422, 'validation_error', 'The `after` cursor is invalid.');
      start = index + 1;
    }
    const page = all.slice(start, start + limit);
    return {
      status: 200,
      body: {
        object: 'list',
        has_more: start + limit < all.length,
        data: page.map((e) => ({
          object: 'suppression',
          id: e.id,
          email: e.email,
          origin: e.origin,
          source_id: null,
          created_at: new Date(e.createdAt).toISOString(),
        })),
      },
    };
  }

  function batchAdd(request: FakeRequest): FakeResponse {
    const body = parseJson(request.body) as { emails?: unknown } | undefined;
    if (!body || typeof body !== 'object') return rsError(400, 'validation_error', 'Invalid JSON body');
    if (body.emails === undefined) return rsError(422, 'missing_required_field', 'Missing `emails` field.');
    const emails = body.emails;
    if (!Array.isArray(emails) || emails.length === 0 || emails.length > RESEND_MAX_BATCH)
      return rsError(422, 'validation_error', 'The `emails` field must contain between 1 and 100 email addresses.');
    if (!emails.every(isEmail)) return rsError(400, 'validation_error', 'Invalid `emails` field.');
    const data = emails.map((email) => ({ object: 'suppression', id: add(email, 'manual', now()).id }));
    pushed.record(request.path, emails);
    return { status: 200, body: { data } };
  }

  function route(request: FakeRequest): FakeResponse {
    const auth = request.headers.authorization;
    if (!auth?.startsWith('Bearer '))
      return rsError(401, 'missing_api_key', 'Missing API key in the authorization header');
    if (auth !== `Bearer ${apiKey}`) return rsError(403, 'invalid_api_key', 'API key is invalid');
    if (request.path === '/suppressions' && request.method === 'POST') {
      const body = parseJson(request.body) as { email?: unknown } | undefined;
      if (!body || typeof body !== 'object') return rsError(400, 'validation_error', 'Invalid JSON body');
      if (body.email === undefined) return rsError(422, 'missing_required_field', 'Missing `email` field.');
      if (!isEmail(body.email)) return rsError(400, 'validation_error', 'Invalid `email` field.');
      const entry = add(body.email, 'manual', now());
      pushed.record(request.path, [body.email]);
      return { status: 200, body: { object: 'suppression', id: entry.id } };
    }
    if (request.path === '/suppressions/batch/add' && request.method === 'POST') return batchAdd(request);
    if (request.path === '/suppressions' && request.method === 'GET') return list(request.query);
    const match = /^\/suppressions\/([^/]+)$/.exec(request.path);
    if (match && (request.method === 'DELETE' || request.method === 'GET')) {
      const key = segment(match[1]);
      const entry = table.get(key.toLowerCase()) ?? [...table.values()].find((e) => e.id === key);
      if (!entry) return rsError(404, 'not_found', 'Suppression not found');
      if (request.method === 'GET')
        return {
          status: 200,
          body: {
            object: 'suppression',
            id: entry.id,
            email: entry.email,
            origin: entry.origin,
            source_id: null,
            created_at: new Date(entry.createdAt).toISOString(),
          },
        };
      table.delete(entry.email.toLowerCase());
      return { status: 200, body: { object: 'suppression', id: entry.id, deleted: true } };
    }
    return rsError(404, 'not_found', 'The requested endpoint does not exist.');
  }

  const fake = await startLoopback(
    (request) => {
      const response = route(request);
      return {
        ...response,
        headers: { 'ratelimit-limit': '2', 'ratelimit-remaining': '1', 'ratelimit-reset': '1', ...response.headers },
      };
    },
    {
      now,
      faultBody: (status) =>
        status === 429
          ? {
              statusCode: 429,
              name: 'rate_limit_exceeded',
              message: 'Too many requests. You can only make 2 requests per second.',
            }
          : { statusCode: 503, name: 'application_error', message: 'Service unavailable' },
    },
  );

  const clearCalls = fake.clearCalls;
  return Object.assign(fake, {
    apiKey,
    clearCalls: () => {
      clearCalls();
      pushed.clear();
    },
    pushes: pushed.pushes,
    entries: () => [...table.values()].map((e) => ({ ...e })),
    seed: (email: string, origin: ResendEntry['origin'], at = now()) => void add(email, origin, at),
  });
}
