/**
 * Mailgun keeps its suppression lists per sending domain, so every change goes to every domain in
 * MAILGUN_DOMAINS: a complaint to `complaints`, a hard bounce to `bounces`, everything else to
 * `unsubscribes` with tag `*` (unsubscribed from all of that domain's mail).
 *
 * Reference: https://documentation.mailgun.com/docs/mailgun/api-reference (pages cited beside each call).
 * - Base URL https://api.mailgun.net, or https://api.eu.mailgun.net for an EU account (MAILGUN_API_URL).
 * - HTTP Basic auth, user `api`, password the key.
 * - The POSTs take either one record as form data or a JSON array of up to 1000 records; this adapter
 *   sends the JSON array, one record from `apply` and up to 1000 from `applyMany` (one POST per domain).
 * - Adding an address already on a list updates it (200); deleting an absent one is 404: already gone.
 * - Mailgun documents no rate-limit reset header: a 429 without Retry-After pauses for the default.
 */
import type { SuppressionReason } from '../../core/suppression/record.js';
import type { ProviderListEntry, SyncOperation, SyncOutcome, SyncTarget } from '../../core/sync/target.js';
import { batchEmails, sharedBatchKey } from './batch.js';
import { type HttpDeps, ProviderHttp, pathSegment } from './http.js';
import { notOurs, type Refusal, removalOutcome } from './removal.js';
import { providerHandlesScope } from './scopes.js';

export interface MailgunSyncConfig {
  readonly apiKey: string;
  readonly apiUrl: string;
  readonly domains: readonly string[];
}

type MailgunList = 'bounces' | 'complaints' | 'unsubscribes';
const LISTS: readonly MailgunList[] = ['bounces', 'complaints', 'unsubscribes'];
const PAGE_LIMIT = 1000;
/**
 * The most records one JSON POST carries: a JSON array "containing up to 1000 bounce records"
 * (https://documentation.mailgun.com/docs/mailgun/api-reference/send/mailgun/bounces/post-v3--domainid--bounces,
 * and the complaints and unsubscribes twins). A body of 1000 bounce records is at most ~420 KB (an
 * address of 320 characters), typically ~120 KB. Mailgun documents no body limit for this POST; its CSV
 * import takes files of up to 25 MB (.../bounces/post-v3--domainid--bounces-import).
 */
export const MAX_RECORDS = 1000;

/** The bounce code and text Mailgun stores for a hard bounce Ratchet pushes (code defaults to 550 anyway). */
const BOUNCE_CODE = '550';
const BOUNCE_ERROR = 'Suppressed by Ratchet: hard bounce';

interface MailgunItem {
  address?: unknown;
  created_at?: unknown;
  code?: unknown;
  error?: unknown;
  tags?: unknown;
}

export class MailgunSyncTarget implements SyncTarget {
  readonly provider = 'mailgun' as const;
  readonly maxBatch = MAX_RECORDS;
  private readonly http: ProviderHttp;
  private readonly base: string;
  private readonly pageLimit: number;

  constructor(
    private readonly config: MailgunSyncConfig,
    deps: HttpDeps & { readonly pageLimit?: number } = {},
  ) {
    this.base = config.apiUrl.replace(/\/+$/, '');
    this.pageLimit = deps.pageLimit ?? PAGE_LIMIT;
    const basic = Buffer.from(`api:${config.apiKey}`).toString('base64');
    this.http = new ProviderHttp(
      { provider: 'mailgun', headers: { authorization: `Basic ${basic}` }, secrets: [config.apiKey, basic] },
      deps,
    );
  }

  handlesScope(scope: string): boolean {
    return providerHandlesScope('mailgun', scope);
  }

  async apply(operation: SyncOperation): Promise<SyncOutcome> {
    if (operation.op === 'suppress') {
      const list = listFor(operation.reason);
      for (const domain of this.config.domains) await this.add(domain, list, [operation.email]);
      return { lists: this.config.domains.map((d) => `${list}@${d}`) };
    }
    if (operation.op !== 'unsuppress') return { lists: [] };
    const removed: string[] = [];
    const refused: Refusal[] = [];
    for (const name of operation.lists) {
      const at = name.indexOf('@');
      const list = name.slice(0, at) as MailgunList;
      if (at < 0 || !LISTS.includes(list)) {
        refused.push(notOurs(name, 'Mailgun'));
        continue;
      }
      // .../bounces/delete-v3--domainid--bounces--address- (and the complaints and unsubscribes twins)
      await this.http.send({
        method: 'DELETE',
        url: `${this.base}/v3/${pathSegment(name.slice(at + 1))}/${list}/${pathSegment(operation.email)}`,
        label: `DELETE /v3/{domain}/${list}/{address}`,
        accept: [404],
      });
      removed.push(name);
    }
    return removalOutcome(removed, refused);
  }

  /**
   * Adds batch, one key per list the reason picks (`mailgun:bounces`, `mailgun:complaints`,
   * `mailgun:unsubscribes`): reasons that pick the same list send the same record. Removals are one
   * address per DELETE; Mailgun holds no scope.
   */
  batchKey(operation: SyncOperation): string | undefined {
    return operation.op === 'suppress' ? `mailgun:${listFor(operation.reason)}` : undefined;
  }

  /** One POST per domain of every record; Mailgun answers for the request as a whole, so each entry answers as `apply`. */
  async applyMany(operations: readonly SyncOperation[]): Promise<SyncOutcome[]> {
    const key = sharedBatchKey(operations, this.maxBatch, (o) => this.batchKey(o));
    const list = LISTS.find((l) => key === `mailgun:${l}`)!;
    const emails = batchEmails(operations);
    for (const domain of this.config.domains) await this.add(domain, list, emails);
    return operations.map(() => ({ lists: this.config.domains.map((d) => `${list}@${d}`) }));
  }

  /**
   * Reads only: GET /v3/{domain}/{bounces|complaints|unsubscribes}/{address}, 404 when absent
   * (.../bounces/get-v3--domainid--bounces--address-, and the complaints and unsubscribes twins); an
   * unsubscribe counts only with tag `*`, the one Ratchet writes. One call per (domain, list) asked.
   */
  async held(operation: SyncOperation): Promise<SyncOutcome | undefined> {
    if (operation.op === 'suppress') {
      const list = listFor(operation.reason);
      for (const domain of this.config.domains)
        if (!(await this.holds(domain, list, operation.email))) return undefined;
      return { lists: this.config.domains.map((d) => `${list}@${d}`) };
    }
    if (operation.op !== 'unsuppress') return undefined;
    const removed: string[] = [];
    const refused: Refusal[] = [];
    for (const name of operation.lists) {
      const at = name.indexOf('@');
      const list = name.slice(0, at) as MailgunList;
      if (at < 0 || !LISTS.includes(list)) refused.push(notOurs(name, 'Mailgun'));
      else if (await this.holds(name.slice(at + 1), list, operation.email)) return undefined;
      else removed.push(name);
    }
    return removalOutcome(removed, refused);
  }

  private async holds(domain: string, list: MailgunList, email: string): Promise<boolean> {
    const answer = await this.http.send({
      method: 'GET',
      url: `${this.base}/v3/${pathSegment(domain)}/${list}/${pathSegment(email)}`,
      label: `GET /v3/{domain}/${list}/{address}`,
      accept: [404],
    });
    if (answer.status === 404) return false;
    if (list !== 'unsubscribes') return true;
    const tags = (answer.body as { tags?: unknown } | undefined)?.tags;
    return !Array.isArray(tags) || tags.length === 0 || tags.map(String).includes('*');
  }

  async list(onPage: (entries: readonly ProviderListEntry[]) => Promise<void> | void): Promise<void> {
    const origin = new URL(this.base).origin;
    for (const domain of this.config.domains) {
      for (const list of LISTS) {
        // .../bounces/get-v3--domainid--bounces: follow paging.next until a page comes back empty.
        let url: string | undefined = `${this.base}/v3/${pathSegment(domain)}/${list}?limit=${this.pageLimit}`;
        const seen = new Set<string>();
        while (url !== undefined && !seen.has(url)) {
          seen.add(url);
          const answer = await this.http.send({ method: 'GET', url, label: `GET /v3/{domain}/${list}` });
          const body = (answer.body ?? {}) as { items?: unknown; paging?: { next?: unknown } };
          const items = Array.isArray(body.items) ? (body.items as MailgunItem[]) : [];
          const entries = items.filter((i) => typeof i.address === 'string').flatMap((i) => entries_(i, list, domain));
          await onPage(entries);
          if (items.length === 0) break;
          const next = typeof body.paging?.next === 'string' ? body.paging.next : undefined;
          // The key goes only where it was configured to go, whatever a paging link says.
          url = next !== undefined && new URL(next).origin === origin ? next : undefined;
        }
      }
    }
  }

  /**
   * .../bounces/post-v3--domainid--bounces, .../complaints/post-v3--domainid--complaints,
   * .../unsubscribe/post-v3--domainid--unsubscribes: a JSON array of one record per address.
   */
  private async add(domain: string, list: MailgunList, emails: readonly string[]): Promise<void> {
    const createdAt = new Date(this.http.now()).toUTCString();
    const record = (email: string) =>
      list === 'bounces'
        ? { address: email, code: BOUNCE_CODE, error: BOUNCE_ERROR, created_at: createdAt }
        : list === 'unsubscribes'
          ? { address: email, tags: ['*'], created_at: createdAt }
          : { address: email, created_at: createdAt };
    await this.http.send({
      method: 'POST',
      url: `${this.base}/v3/${pathSegment(domain)}/${list}`,
      label: `POST /v3/{domain}/${list}`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(emails.map(record)),
    });
  }
}

/** A complaint to `complaints`, a hard bounce to `bounces`, every other reason to `unsubscribes`. */
function listFor(reason: SuppressionReason): MailgunList {
  return reason === 'complaint' ? 'complaints' : reason === 'hard_bounce' ? 'bounces' : 'unsubscribes';
}

/**
 * One entry per list; an unsubscribe from particular tags only (not `*`) is a topic-like scope
 * `mailgun:tag:<tag>`, one entry per tag, so reconcile never imports it as a global suppression.
 */
function entries_(item: MailgunItem, list: MailgunList, domain: string): ProviderListEntry[] {
  const date = typeof item.created_at === 'string' ? Date.parse(item.created_at) : Number.NaN;
  const base = { email: item.address as string, list: `${list}@${domain}`, ...(Number.isNaN(date) ? {} : { date }) };
  if (list === 'bounces') {
    const reason = [item.code, item.error].filter((v) => v !== undefined && v !== '').join(' ');
    return [{ ...base, ...(reason ? { reason } : {}) }];
  }
  if (list === 'complaints') return [{ ...base, reason: 'complaint' }];
  const tags = Array.isArray(item.tags) ? item.tags.map(String) : ['*'];
  if (tags.length === 0 || tags.includes('*')) return [{ ...base, reason: 'unsubscribe' }];
  return tags.map((tag) => ({ ...base, reason: 'unsubscribe', scope: `mailgun:tag:${tag}` }));
}
