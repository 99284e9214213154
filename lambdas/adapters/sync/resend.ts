/**
 * Resend: the team's suppression list (Suppressions API). One list for the whole team, so every global
 * suppression is one entry, stored with origin `manual`, whatever Ratchet's reason. Resend has no
 * per-topic suppression in this API (topics and audiences are contact properties), so no scope.
 *
 * Reference (the pages say "private beta, APIs might change before GA"; the changelog
 * https://resend.com/changelog/suppression-list-support announces the managed lists):
 * - POST /suppressions {email}: https://resend.com/docs/api-reference/suppressions/add-suppression
 * - POST /suppressions/batch/add {emails} (1 to 100) → {data: [{object: "suppression", id}]}:
 *   https://resend.com/docs/api-reference/suppressions/add-batch-suppressions (applyMany)
 * - GET /suppressions/{id or email}: https://resend.com/docs/api-reference/suppressions/get-suppression
 *   (404 "Suppression not found" when the address is not suppressed)
 * - DELETE /suppressions/{id or email}: https://resend.com/docs/api-reference/suppressions/remove-suppression
 * - GET /suppressions: https://resend.com/docs/api-reference/suppressions/list-suppressions, paged by
 *   `limit` (1 to 100) and `after` (the last id of the previous page) while `has_more`:
 *   https://resend.com/docs/api-reference/pagination
 * - Rate limit (2 requests/s per team by default): 429 with retry-after (seconds) and ratelimit-reset
 *   (seconds until the window resets): https://resend.com/docs/api-reference/rate-limit
 * - Errors: https://resend.com/docs/api-reference/errors (missing_api_key 401, invalid_api_key 403).
 * The reference does not say what a second add of the same address answers; a 409 is taken as "already
 * there" for one address. A batch answered 409 is not: it would not say which addresses were taken, so
 * it is a refusal of the request, and the caller pushes each address alone.
 */
import type { ProviderListEntry, SyncOperation, SyncOutcome, SyncTarget } from '../../core/sync/target.js';
import { batchEmails, sharedBatchKey } from './batch.js';
import { type HttpDeps, ProviderHttp, pathSegment } from './http.js';
import { foreignLists, removalOutcome } from './removal.js';
import { providerHandlesScope } from './scopes.js';

export interface ResendSyncConfig {
  readonly apiKey: string;
  readonly apiUrl: string;
}

const LIST = 'suppressions';
const PAGE_LIMIT = 100;
/**
 * The most addresses one batch add carries: "Must contain between 1 and 100 email addresses"
 * (https://resend.com/docs/api-reference/suppressions/add-batch-suppressions). At most ~33 KB a body.
 */
export const MAX_EMAILS = 100;
const KEY = 'resend:suppressions';

export class ResendSyncTarget implements SyncTarget {
  readonly provider = 'resend' as const;
  readonly maxBatch = MAX_EMAILS;
  private readonly http: ProviderHttp;
  private readonly base: string;
  private readonly pageLimit: number;

  constructor(config: ResendSyncConfig, deps: HttpDeps & { readonly pageLimit?: number } = {}) {
    this.base = config.apiUrl.replace(/\/+$/, '');
    this.pageLimit = deps.pageLimit ?? PAGE_LIMIT;
    this.http = new ProviderHttp(
      {
        provider: 'resend',
        headers: { authorization: `Bearer ${config.apiKey}` },
        secrets: [config.apiKey],
        resetAt: (headers, now) => {
          const seconds = Number(headers.get('ratelimit-reset'));
          return headers.has('ratelimit-reset') && Number.isFinite(seconds) && seconds >= 0
            ? now + Math.ceil(seconds * 1000)
            : undefined;
        },
      },
      deps,
    );
  }

  handlesScope(scope: string): boolean {
    return providerHandlesScope('resend', scope);
  }

  async apply(operation: SyncOperation): Promise<SyncOutcome> {
    if (operation.op === 'suppress') {
      await this.http.send({
        method: 'POST',
        url: `${this.base}/suppressions`,
        label: 'POST /suppressions',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: operation.email }),
        accept: [409],
      });
      return { lists: [LIST], providerReason: 'manual' };
    }
    if (operation.op !== 'unsuppress') return { lists: [] };
    const refused = foreignLists(operation.lists, (l) => l === LIST, 'Resend');
    if (!operation.lists.includes(LIST)) return removalOutcome([], refused);
    await this.http.send({
      method: 'DELETE',
      url: `${this.base}/suppressions/${pathSegment(operation.email)}`,
      label: 'DELETE /suppressions/{email}',
      accept: [404],
    });
    return removalOutcome([LIST], refused);
  }

  /** Only adds batch (the team's one list); a removal is one DELETE per address. */
  batchKey(operation: SyncOperation): string | undefined {
    return operation.op === 'suppress' ? KEY : undefined;
  }

  /** One POST /suppressions/batch/add; Resend answers for the request as a whole, so each entry answers as `apply`. */
  async applyMany(operations: readonly SyncOperation[]): Promise<SyncOutcome[]> {
    sharedBatchKey(operations, this.maxBatch, (o) => this.batchKey(o));
    await this.http.send({
      method: 'POST',
      url: `${this.base}/suppressions/batch/add`,
      label: 'POST /suppressions/batch/add',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ emails: batchEmails(operations) }),
    });
    return operations.map(() => ({ lists: [LIST], providerReason: 'manual' }));
  }

  /** Reads only: GET /suppressions/{id or email}, 404 `not_found` when the address is not suppressed. */
  async held(operation: SyncOperation): Promise<SyncOutcome | undefined> {
    if (operation.op === 'suppress')
      return (await this.holds(operation.email)) ? { lists: [LIST], providerReason: 'manual' } : undefined;
    if (operation.op !== 'unsuppress' || !operation.lists.includes(LIST)) return undefined;
    if (await this.holds(operation.email)) return undefined;
    const refused = foreignLists(operation.lists, (l) => l === LIST, 'Resend');
    return removalOutcome([LIST], refused);
  }

  private async holds(email: string): Promise<boolean> {
    const answer = await this.http.send({
      method: 'GET',
      url: `${this.base}/suppressions/${pathSegment(email)}`,
      label: 'GET /suppressions/{email}',
      accept: [404],
    });
    return answer.status !== 404;
  }

  async list(onPage: (entries: readonly ProviderListEntry[]) => Promise<void> | void): Promise<void> {
    let after: string | undefined;
    for (;;) {
      const answer = await this.http.send({
        method: 'GET',
        url: `${this.base}/suppressions?limit=${this.pageLimit}${after !== undefined ? `&after=${encodeURIComponent(after)}` : ''}`,
        label: 'GET /suppressions',
      });
      const body = (answer.body ?? {}) as { data?: unknown; has_more?: unknown };
      const rows = (Array.isArray(body.data) ? body.data : []) as Record<string, unknown>[];
      const entries: ProviderListEntry[] = rows
        .filter((r) => typeof r.email === 'string')
        .map((r) => {
          const date = typeof r.created_at === 'string' ? Date.parse(r.created_at) : Number.NaN;
          return {
            email: r.email as string,
            list: LIST,
            ...(typeof r.origin === 'string' ? { reason: r.origin } : {}),
            ...(Number.isNaN(date) ? {} : { date }),
          };
        });
      await onPage(entries);
      const last = rows.at(-1)?.id;
      if (body.has_more !== true || typeof last !== 'string' || last === after) return;
      after = last;
    }
  }
}
