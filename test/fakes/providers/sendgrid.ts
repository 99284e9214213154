/**
 * A fake of SendGrid's v3 suppression APIs.
 *
 * Sources (Twilio SendGrid API reference, https://www.twilio.com/docs/sendgrid/api-reference/...):
 * - Auth: `Authorization: Bearer <key>`; a missing or wrong key is 401
 *   {"errors":[{"field":null,"message":"authorization required"}]}.  .../how-to-use-the-sendgrid-v3-api/errors
 * - Rate limits: every answer carries X-RateLimit-Limit/-Remaining/-Reset (epoch seconds); over the limit,
 *   429 {"errors":[{"field":null,"message":"too many requests"}]}.  .../how-to-use-the-sendgrid-v3-api/rate-limits
 * - POST /v3/asm/suppressions/global {recipient_emails: [..]} → 201 {recipient_emails}.
 *   .../suppressions-global-suppressions/add-recipient-addresses-to-the-global-suppression-group
 *   `recipient_emails` is "one or more" addresses and the page names no largest count, so this fake takes
 *   any non-empty list (as the group POST below); an address SendGrid cannot read refuses the request as a
 *   whole (400, nothing written), the only per-request answer the reference shows.
 * - DELETE /v3/asm/suppressions/global/{email} → 204.  .../suppressions-global-suppressions/delete-a-global-suppression
 * - GET /v3/asm/suppressions/global/{email} → 200 {recipient_email} when globally suppressed, 200 {} when not.
 *   .../suppressions-global-suppressions/retrieve-a-global-suppression
 * - GET /v3/asm/suppressions/{email} → 200 {suppressions: [{description, id, is_default, name, suppressed}]},
 *   one row per group, `suppressed` true where the address is.
 *   .../suppressions-suppressions/retrieve-all-suppression-groups-for-an-email-address
 * - GET /v3/asm/groups → [{id, name, description, is_default, unsubscribes}].
 *   .../suppressions-unsubscribe-groups/retrieve-all-suppression-groups-associated-with-the-user
 * - POST /v3/asm/groups/{group_id}/suppressions {recipient_emails} → 201 {recipient_emails};
 *   GET → ["email", ...]; DELETE .../{email} → 204.  .../suppressions-suppressions/add-suppressions-to-a-suppression-group,
 *   .../suppressions-suppressions/retrieve-all-suppressions-for-a-suppression-group,
 *   .../suppressions-suppressions/delete-a-suppression-from-a-suppression-group
 * - GET /v3/suppression/{bounces|blocks|spam_reports|invalid_emails|unsubscribes}?limit=&offset= → an
 *   array of {created (epoch s), email, reason?, status?}, paged by limit (at most 500) and offset.
 *   .../bounces-api/retrieve-all-bounces, .../blocks-api/retrieve-all-blocks, .../spam-reports-api/retrieve-all-spam-reports,
 *   .../invalid-e-mails-api/retrieve-all-invalid-emails, .../suppressions-global-suppressions/retrieve-all-global-suppressions
 * Bounces, blocks, spam reports and invalid emails cannot be added through the API (no POST route), so
 * tests seed them with `seed()`.
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

export const SENDGRID_READ_LISTS = ['bounces', 'blocks', 'spam_reports', 'invalid_emails', 'unsubscribes'] as const;
export type SendGridReadList = (typeof SENDGRID_READ_LISTS)[number];

export interface SendGridItem {
  email: string;
  /** epoch seconds, as SendGrid gives it */
  created: number;
  reason?: string;
  status?: string;
}

export interface SendGridFake extends LoopbackFake {
  readonly apiKey: string;
  /** `unsubscribes` is the global unsubscribe list (what POST /v3/asm/suppressions/global adds to). */
  list(name: SendGridReadList): SendGridItem[];
  /** How many entries a list holds, without copying them (a bench polls it while a drain runs). */
  count(name: SendGridReadList): number;
  group(id: number): string[];
  seed(name: SendGridReadList, item: SendGridItem): void;
  /** Every add the fake took, in order: the global list's and each group's. */
  pushes(): readonly RecordedPush[];
}

export interface SendGridFakeOptions {
  apiKey?: string;
  /** The unsubscribe groups the account has (SendGrid refuses a suppression for a group that does not exist). */
  groups?: readonly { id: number; name: string }[];
  now?: () => number;
}

const sgError = (status: number, message: string, field: string | null = null): FakeResponse => ({
  status,
  body: { errors: [{ field, message }] },
});

export async function startSendGridFake(options: SendGridFakeOptions = {}): Promise<SendGridFake> {
  const apiKey = options.apiKey ?? 'SG.sync-fake-key';
  const now = options.now ?? Date.now;
  const groups = new Map<number, { name: string; members: Map<string, string> }>();
  for (const g of options.groups ?? [
    { id: 7, name: 'newsletter' },
    { id: 8, name: 'product updates' },
  ]) {
    groups.set(g.id, { name: g.name, members: new Map() });
  }
  const lists = new Map<SendGridReadList, Map<string, SendGridItem>>(SENDGRID_READ_LISTS.map((n) => [n, new Map()]));
  const pushed = pushLog(now);

  const rateHeaders = () => ({
    'x-ratelimit-limit': '600',
    'x-ratelimit-remaining': '599',
    'x-ratelimit-reset': String(Math.ceil(now() / 1000) + 60),
  });

  function recipients(body: string): string[] | FakeResponse {
    const parsed = parseJson(body) as { recipient_emails?: unknown } | undefined;
    if (!parsed || typeof parsed !== 'object') return sgError(400, 'invalid JSON');
    const emails = parsed.recipient_emails;
    if (!Array.isArray(emails) || emails.length === 0)
      return sgError(400, 'recipient_emails is required', 'recipient_emails');
    if (!emails.every(isEmail)) return sgError(400, 'email address is invalid', 'recipient_emails');
    return emails as string[];
  }

  function page(name: SendGridReadList, query: URLSearchParams): FakeResponse {
    const limit = query.has('limit') ? Number(query.get('limit')) : 500;
    const offset = query.has('offset') ? Number(query.get('offset')) : 0;
    if (!Number.isInteger(limit) || limit < 1 || limit > 500)
      return sgError(400, 'limit must be between 1 and 500', 'limit');
    if (!Number.isInteger(offset) || offset < 0) return sgError(400, 'offset must be a non-negative integer', 'offset');
    // Newest first, as SendGrid lists them.
    const all = [...lists.get(name)!.values()].sort((a, b) => b.created - a.created || a.email.localeCompare(b.email));
    return { status: 200, body: all.slice(offset, offset + limit) };
  }

  function route(request: FakeRequest): FakeResponse {
    const { method, path } = request;
    if (request.headers.authorization !== `Bearer ${apiKey}`) return sgError(401, 'authorization required');
    if (path === '/v3/asm/suppressions/global' && method === 'POST') {
      const emails = recipients(request.body);
      if (!Array.isArray(emails)) return emails;
      for (const email of emails) {
        const key = email.toLowerCase();
        const existing = lists.get('unsubscribes')!.get(key);
        lists.get('unsubscribes')!.set(key, existing ?? { email, created: Math.floor(now() / 1000) });
      }
      pushed.record(path, emails);
      return { status: 201, body: { recipient_emails: emails } };
    }
    let match = /^\/v3\/asm\/suppressions\/global\/([^/]+)$/.exec(path);
    if (match && method === 'DELETE') {
      lists.get('unsubscribes')!.delete(segment(match[1]).toLowerCase());
      return { status: 204 };
    }
    if (match && method === 'GET') {
      const item = lists.get('unsubscribes')!.get(segment(match[1]).toLowerCase());
      return { status: 200, body: item ? { recipient_email: item.email } : {} };
    }
    match = /^\/v3\/asm\/suppressions\/([^/]+)$/.exec(path);
    if (match && method === 'GET' && match[1] !== 'global') {
      const key = segment(match[1]).toLowerCase();
      const rows = [...groups].map(([id, g]) => ({
        description: g.name,
        id,
        is_default: false,
        name: g.name,
        suppressed: g.members.has(key),
      }));
      return { status: 200, body: { suppressions: rows } };
    }
    if (path === '/v3/asm/groups' && method === 'GET') {
      return {
        status: 200,
        body: [...groups].map(([id, g]) => ({
          id,
          name: g.name,
          description: g.name,
          is_default: false,
          unsubscribes: g.members.size,
        })),
      };
    }
    match = /^\/v3\/asm\/groups\/([^/]+)\/suppressions(?:\/([^/]+))?$/.exec(path);
    if (match) {
      const group = groups.get(Number(match[1]));
      if (!group) return sgError(404, 'Unsubscribe group not found', 'group_id');
      if (match[2] === undefined && method === 'POST') {
        const emails = recipients(request.body);
        if (!Array.isArray(emails)) return emails;
        for (const email of emails)
          group.members.set(email.toLowerCase(), group.members.get(email.toLowerCase()) ?? email);
        pushed.record(path, emails);
        return { status: 201, body: { recipient_emails: emails } };
      }
      if (match[2] === undefined && method === 'GET') return { status: 200, body: [...group.members.values()] };
      if (match[2] !== undefined && method === 'DELETE') {
        group.members.delete(segment(match[2]).toLowerCase());
        return { status: 204 };
      }
    }
    match = /^\/v3\/suppression\/([a-z_]+)$/.exec(path);
    if (match && method === 'GET' && (SENDGRID_READ_LISTS as readonly string[]).includes(match[1]!)) {
      return page(match[1] as SendGridReadList, request.query);
    }
    return sgError(404, 'resource not found');
  }

  const fake = await startLoopback(
    (request) => {
      const response = route(request);
      return { ...response, headers: { ...rateHeaders(), ...response.headers } };
    },
    {
      now,
      faultBody: (status) => ({
        errors: [{ field: null, message: status === 429 ? 'too many requests' : 'service unavailable' }],
      }),
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
    list: (name: SendGridReadList) => [...lists.get(name)!.values()].map((i) => ({ ...i })),
    count: (name: SendGridReadList) => lists.get(name)!.size,
    group: (id: number) => [...(groups.get(id)?.members.values() ?? [])],
    seed: (name: SendGridReadList, item: SendGridItem) =>
      void lists.get(name)!.set(item.email.toLowerCase(), { ...item }),
  });
}
