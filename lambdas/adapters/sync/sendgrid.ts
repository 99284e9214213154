/**
 * SendGrid: every global suppression becomes a global unsubscribe, and a topic scope
 * `sendgrid:group:<id>` that group's suppressions. SendGrid's API cannot add a bounce, a block, a spam
 * report or an invalid email (those lists are read and delete only), and a global unsubscribe blocks every
 * send, so that is the faithful push for a complaint or a hard bounce too; the outcome says so
 * (`providerReason: global_unsubscribe`).
 *
 * Reference: https://www.twilio.com/docs/sendgrid/api-reference (pages cited beside each call).
 * Rate limits: X-RateLimit-Reset is an epoch-seconds instant
 * (https://www.twilio.com/docs/sendgrid/api-reference/how-to-use-the-sendgrid-v3-api/rate-limits).
 */
import type { SuppressionReason } from '../../core/suppression/record.js';
import type { ProviderListEntry, SyncOperation, SyncOutcome, SyncTarget } from '../../core/sync/target.js';
import { type HttpDeps, ProviderHttp, pathSegment } from './http.js';
import { notOurs, type Refusal, removalOutcome } from './removal.js';

export interface SendGridSyncConfig {
  readonly apiKey: string;
  readonly apiUrl: string;
}

const GLOBAL = 'global_unsubscribes';
const GROUP_SCOPE = /^sendgrid:group:(\d+)$/;
const GROUP_LIST = /^group:(\d+)$/;
/** SendGrid's largest page for the /v3/suppression lists. */
const PAGE_LIMIT = 500;

/** The read-only lists reconcile compares, by their SendGrid path; blocks are temporary refusals. */
const READ_LISTS = [
  { path: 'bounces', list: 'bounces' }, // .../bounces-api/retrieve-all-bounces
  { path: 'blocks', list: 'blocks', informational: true }, // .../blocks-api/retrieve-all-blocks
  { path: 'spam_reports', list: 'spam_reports' }, // .../spam-reports-api/retrieve-all-spam-reports
  { path: 'invalid_emails', list: 'invalid_emails' }, // .../invalid-e-mails-api/retrieve-all-invalid-emails
  { path: 'unsubscribes', list: GLOBAL }, // .../suppressions-global-suppressions/retrieve-all-global-suppressions
] as const;

interface SendGridItem {
  email?: unknown;
  created?: unknown;
  reason?: unknown;
}

export class SendGridSyncTarget implements SyncTarget {
  readonly provider = 'sendgrid' as const;
  private readonly http: ProviderHttp;
  private readonly base: string;
  private readonly pageLimit: number;
  /** The account's unsubscribe groups, as the last `list` found them. */
  private listedGroups?: Set<number>;

  constructor(config: SendGridSyncConfig, deps: HttpDeps & { readonly pageLimit?: number } = {}) {
    this.pageLimit = deps.pageLimit ?? PAGE_LIMIT;
    this.base = config.apiUrl.replace(/\/+$/, '');
    this.http = new ProviderHttp(
      {
        provider: 'sendgrid',
        headers: { authorization: `Bearer ${config.apiKey}` },
        secrets: [config.apiKey],
        resetAt: (headers) => {
          const reset = Number(headers.get('x-ratelimit-reset'));
          return Number.isFinite(reset) && reset > 0 ? reset * 1000 : undefined;
        },
      },
      deps,
    );
  }

  handlesScope(scope: string): boolean {
    return GROUP_SCOPE.test(scope);
  }

  /** After `list`: only the groups the account has (a deleted group holds nothing, and refuses a push). */
  listsScope(scope: string): boolean {
    const group = GROUP_SCOPE.exec(scope)?.[1];
    return group !== undefined && (this.listedGroups?.has(Number(group)) ?? true);
  }

  async apply(operation: SyncOperation): Promise<SyncOutcome> {
    switch (operation.op) {
      case 'suppress':
        await this.addGlobal(operation.email);
        return globalOutcome(operation.reason);
      case 'suppressScope': {
        const group = GROUP_SCOPE.exec(operation.scope)?.[1];
        if (group === undefined) return { lists: [] };
        await this.addToGroup(group, operation.email);
        return { lists: [`group:${group}`] };
      }
      case 'unsuppressScope': {
        const group = GROUP_SCOPE.exec(operation.scope)?.[1];
        if (group === undefined) return { lists: [] };
        await this.removeFromGroup(group, operation.email);
        return { lists: [`group:${group}`] };
      }
      case 'unsuppress': {
        const removed: string[] = [];
        const refused: Refusal[] = [];
        for (const list of operation.lists) {
          const group = GROUP_LIST.exec(list)?.[1];
          if (list === GLOBAL) await this.removeGlobal(operation.email);
          else if (group !== undefined) await this.removeFromGroup(group, operation.email);
          else {
            refused.push(notOurs(list, 'SendGrid'));
            continue;
          }
          removed.push(list);
        }
        return removalOutcome(removed, refused);
      }
    }
  }

  /**
   * Reads only: .../suppressions-global-suppressions/retrieve-a-global-suppression (GET
   * /v3/asm/suppressions/global/{email}: `{recipient_email}` when suppressed, `{}` when not) and
   * .../suppressions-suppressions/retrieve-all-suppression-groups-for-an-email-address (GET
   * /v3/asm/suppressions/{email}: `{suppressions: [{id, suppressed, ...}]}`), one call per list asked.
   */
  async held(operation: SyncOperation): Promise<SyncOutcome | undefined> {
    const { email } = operation;
    switch (operation.op) {
      case 'suppress':
        if (!(await this.inGlobal(email))) return undefined;
        return globalOutcome(operation.reason);
      case 'suppressScope':
      case 'unsuppressScope': {
        const group = GROUP_SCOPE.exec(operation.scope)?.[1];
        if (group === undefined) return undefined;
        const there = (await this.groupsOf(email)).has(Number(group));
        return there === (operation.op === 'suppressScope') ? { lists: [`group:${group}`] } : undefined;
      }
      case 'unsuppress': {
        const removed: string[] = [];
        const refused: Refusal[] = [];
        let groups: Set<number> | undefined;
        for (const list of operation.lists) {
          const group = GROUP_LIST.exec(list)?.[1];
          if (list === GLOBAL) {
            if (await this.inGlobal(email)) return undefined;
          } else if (group !== undefined) {
            groups ??= await this.groupsOf(email);
            if (groups.has(Number(group))) return undefined;
          } else {
            refused.push(notOurs(list, 'SendGrid'));
            continue;
          }
          removed.push(list);
        }
        return removalOutcome(removed, refused);
      }
    }
  }

  async list(onPage: (entries: readonly ProviderListEntry[]) => Promise<void> | void): Promise<void> {
    for (const source of READ_LISTS) {
      for (let offset = 0; ; offset += this.pageLimit) {
        const answer = await this.http.send({
          method: 'GET',
          url: `${this.base}/v3/suppression/${source.path}?limit=${this.pageLimit}&offset=${offset}`,
          label: `GET /v3/suppression/${source.path}`,
        });
        const items = Array.isArray(answer.body) ? (answer.body as SendGridItem[]) : [];
        const entries = items
          .filter((i) => typeof i.email === 'string')
          .map((i) => entry(i, source.list, 'informational' in source));
        if (entries.length > 0) await onPage(entries);
        if (items.length < this.pageLimit) break;
      }
    }
    // .../suppressions-unsubscribe-groups/retrieve-all-suppression-groups-associated-with-the-user (at most 200 groups)
    const groups = await this.http.send({
      method: 'GET',
      url: `${this.base}/v3/asm/groups`,
      label: 'GET /v3/asm/groups',
    });
    const listed = new Set<number>();
    this.listedGroups = listed;
    for (const group of Array.isArray(groups.body) ? (groups.body as { id?: unknown }[]) : []) {
      if (typeof group.id !== 'number') continue;
      listed.add(group.id);
      // .../suppressions-suppressions/retrieve-all-suppressions-for-a-suppression-group: every address, unpaged.
      const members = await this.http.send({
        method: 'GET',
        url: `${this.base}/v3/asm/groups/${group.id}/suppressions`,
        label: 'GET /v3/asm/groups/{group_id}/suppressions',
      });
      const emails = Array.isArray(members.body) ? members.body.filter((e): e is string => typeof e === 'string') : [];
      if (emails.length > 0)
        await onPage(
          emails.map((email) => ({ email, list: `group:${group.id}`, scope: `sendgrid:group:${group.id}` })),
        );
    }
  }

  private async inGlobal(email: string): Promise<boolean> {
    const answer = await this.http.send({
      method: 'GET',
      url: `${this.base}/v3/asm/suppressions/global/${pathSegment(email)}`,
      label: 'GET /v3/asm/suppressions/global/{email}',
    });
    const found = (answer.body as { recipient_email?: unknown } | undefined)?.recipient_email;
    return typeof found === 'string' && found.toLowerCase() === email.toLowerCase();
  }

  /** The ids of the groups `email` is suppressed in. */
  private async groupsOf(email: string): Promise<Set<number>> {
    const answer = await this.http.send({
      method: 'GET',
      url: `${this.base}/v3/asm/suppressions/${pathSegment(email)}`,
      label: 'GET /v3/asm/suppressions/{email}',
    });
    const rows = (answer.body as { suppressions?: unknown } | undefined)?.suppressions;
    return new Set(
      (Array.isArray(rows) ? (rows as { id?: unknown; suppressed?: unknown }[]) : [])
        .filter((r) => r.suppressed === true && typeof r.id === 'number')
        .map((r) => r.id as number),
    );
  }

  /** .../suppressions-global-suppressions/add-recipient-addresses-to-the-global-suppression-group: an address already there stays. */
  private async addGlobal(email: string): Promise<void> {
    await this.http.send({
      method: 'POST',
      url: `${this.base}/v3/asm/suppressions/global`,
      label: 'POST /v3/asm/suppressions/global',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ recipient_emails: [email] }),
    });
  }

  /** .../suppressions-global-suppressions/delete-a-global-suppression: 204; a 404 means already gone. */
  private async removeGlobal(email: string): Promise<void> {
    await this.http.send({
      method: 'DELETE',
      url: `${this.base}/v3/asm/suppressions/global/${pathSegment(email)}`,
      label: 'DELETE /v3/asm/suppressions/global/{email}',
      accept: [404],
    });
  }

  /** .../suppressions-suppressions/add-suppressions-to-a-suppression-group */
  private async addToGroup(group: string, email: string): Promise<void> {
    await this.http.send({
      method: 'POST',
      url: `${this.base}/v3/asm/groups/${group}/suppressions`,
      label: 'POST /v3/asm/groups/{group_id}/suppressions',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ recipient_emails: [email] }),
    });
  }

  /** .../suppressions-suppressions/delete-a-suppression-from-a-suppression-group: 204; a 404 means already gone. */
  private async removeFromGroup(group: string, email: string): Promise<void> {
    await this.http.send({
      method: 'DELETE',
      url: `${this.base}/v3/asm/groups/${group}/suppressions/${pathSegment(email)}`,
      label: 'DELETE /v3/asm/groups/{group_id}/suppressions/{email}',
      accept: [404],
    });
  }
}

/** A global unsubscribe stands for every reason; the outcome says so unless the reason was an unsubscribe. */
function globalOutcome(reason: SuppressionReason): SyncOutcome {
  return { lists: [GLOBAL], ...(reason === 'unsubscribe' ? {} : { providerReason: 'global_unsubscribe' }) };
}

function entry(item: SendGridItem, list: string, informational: boolean): ProviderListEntry {
  const created = typeof item.created === 'number' ? item.created * 1000 : undefined;
  return {
    email: item.email as string,
    list,
    ...(typeof item.reason === 'string' && item.reason !== '' ? { reason: item.reason } : {}),
    ...(created !== undefined ? { date: created } : {}),
    ...(informational ? { informational: true } : {}),
  };
}
