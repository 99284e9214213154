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
 * - GET /v3/asm/groups/{group_id} → 200 {id, name, description, is_default, unsubscribes}.
 *   .../suppressions-unsubscribe-groups/get-information-on-a-single-suppression-group. The page documents
 *   only that 200; for a group that does not exist (or was deleted) this fake answers 404 in SendGrid's
 *   error shape ({errors: [{field, message}]}, .../how-to-use-the-sendgrid-v3-api/errors), the answer the
 *   v3 overview gives for "a resource that could not be found or does not exist".
 * - DELETE /v3/asm/groups/{group_id} → 204, and the group's suppressions go with it ("Deleting a
 *   suppression group will remove the suppression").  .../suppressions-unsubscribe-groups/delete-a-suppression-group
 * - POST /v3/asm/groups/{group_id}/suppressions {recipient_emails} → 201 {recipient_emails};
 *   GET → ["email", ...]; DELETE .../{email} → 204.  .../suppressions-suppressions/add-suppressions-to-a-suppression-group,
 *   .../suppressions-suppressions/retrieve-all-suppressions-for-a-suppression-group,
 *   .../suppressions-suppressions/delete-a-suppression-from-a-suppression-group
 *   The POST into a group that does not exist is NOT refused: "If you attempt to add suppressions to a
 *   group that has been deleted or does not exist, the suppressions will be added to the global
 *   suppressions list." (same page). So this fake puts them on the global unsubscribes and answers the
 *   page's documented success, 201 {recipient_emails}: the caller cannot tell from the answer, which is
 *   why the adapter checks the group first. The push log records it as an add to the global list. Read or
 *   DELETE of a missing group's suppressions: the pages document no answer; this fake answers 404.
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

const GLOBAL_PATH = '/v3/asm/suppressions/global';

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
  /** Deletes a group as DELETE /v3/asm/groups/{group_id} does (its suppressions go with it); false when there was none. */
  deleteGroup(id: number): boolean;
  seed(name: SendGridReadList, item: SendGridItem): void;
  /**
   * Every add the fake took, in order: the global list's and each group's. An add posted to a group that
   * does not exist is recorded under the global list's path, where SendGrid puts it.
   */
  pushes(): readonly RecordedPush[];
}

export interface SendGridFakeOptions {
  apiKey?: string;
  /** The unsubscribe groups the account has (a suppression posted to any other group lands on the global list). */
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

  /** What POST /v3/asm/suppressions/global does, and a POST into a group that does not exist too. */
  function addGlobal(emails: readonly string[]): FakeResponse {
    for (const email of emails) {
      const key = email.toLowerCase();
      const existing = lists.get('unsubscribes')!.get(key);
      lists.get('unsubscribes')!.set(key, existing ?? { email, created: Math.floor(now() / 1000) });
    }
    pushed.record(GLOBAL_PATH, emails);
    return { status: 201, body: { recipient_emails: emails } };
  }

  const groupRow = (id: number, g: { name: string; members: Map<string, string> }) => ({
    id,
    name: g.name,
    description: g.name,
    is_default: false,
    unsubscribes: g.members.size,
  });

  function route(request: FakeRequest): FakeResponse {
    const { method, path } = request;
    if (request.headers.authorization !== `Bearer ${apiKey}`) return sgError(401, 'authorization required');
    if (path === GLOBAL_PATH && method === 'POST') {
      const emails = recipients(request.body);
      if (!Array.isArray(emails)) return emails;
      return addGlobal(emails);
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
      return { status: 200, body: [...groups].map(([id, g]) => groupRow(id, g)) };
    }
    match = /^\/v3\/asm\/groups\/([^/]+)$/.exec(path);
    if (match && (method === 'GET' || method === 'DELETE')) {
      const id = Number(match[1]);
      const group = groups.get(id);
      if (!group) return sgError(404, 'resource not found');
      if (method === 'DELETE') groups.delete(id);
      return method === 'GET' ? { status: 200, body: groupRow(id, group) } : { status: 204 };
    }
    match = /^\/v3\/asm\/groups\/([^/]+)\/suppressions(?:\/([^/]+))?$/.exec(path);
    if (match) {
      const group = groups.get(Number(match[1]));
      if (!group && match[2] === undefined && method === 'POST') {
        // As the reference says: a deleted or unknown group's suppressions go on the global list.
        const emails = recipients(request.body);
        return Array.isArray(emails) ? addGlobal(emails) : emails;
      }
      if (!group) return sgError(404, 'resource not found');
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
    deleteGroup: (id: number) => groups.delete(id),
    seed: (name: SendGridReadList, item: SendGridItem) =>
      void lists.get(name)!.set(item.email.toLowerCase(), { ...item }),
  });
}
