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
import {
  type ProviderListEntry,
  type SyncOperation,
  type SyncOutcome,
  SyncRefusedError,
  type SyncTarget,
} from '../../core/sync/target.js';
import { batchEmails, sharedBatchKey } from './batch.js';
import { type HttpDeps, ProviderHttp, pathSegment } from './http.js';
import { notOurs, type Refusal, removalOutcome } from './removal.js';
import { GROUP_SCOPE, providerHandlesScope } from './scopes.js';
import { SendGridGroups } from './sendgrid-groups.js';
import { GLOBAL, listSendGrid } from './sendgrid-list.js';

export interface SendGridSyncConfig {
  readonly apiKey: string;
  readonly apiUrl: string;
}

const GROUP_LIST = /^group:(\d+)$/;
/** SendGrid's largest page for the /v3/suppression lists. */
const PAGE_LIMIT = 500;
/**
 * The most addresses one `recipient_emails` carries. SendGrid publishes no cap for it (neither
 * .../add-recipient-addresses-to-the-global-suppression-group nor .../add-suppressions-to-a-suppression-group
 * names one), so this is our own, conservative: SendGrid's own largest page of the same suppression
 * lists (PAGE_LIMIT). A body of 500 addresses is at most ~165 KB (320 characters an address), and
 * typically ~15 KB; one the provider refuses as a whole is retried address by address by the caller, so a
 * smaller batch also bounds what one bad address costs.
 */
export const MAX_RECIPIENTS = 500;

export class SendGridSyncTarget implements SyncTarget {
  readonly provider = 'sendgrid' as const;
  readonly maxBatch = MAX_RECIPIENTS;
  private readonly http: ProviderHttp;
  private readonly base: string;
  private readonly pageLimit: number;
  /** Asked before every add into a group: SendGrid puts an add into a missing group on the global list. */
  private readonly groups: SendGridGroups;
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
    this.groups = new SendGridGroups(this.http, this.base);
  }

  /**
   * How long one check of the account's groups is trusted (sendgrid-groups.ts). The worker's gate wraps
   * `apply` and `applyMany` whole, so the one gate slot that finds the check stale carries two SendGrid
   * calls, the check and the push: one extra read per worker process per window.
   */
  get groupCheckMs(): number {
    return this.groups.windowMs;
  }

  handlesScope(scope: string): boolean {
    return providerHandlesScope('sendgrid', scope);
  }

  /**
   * After `list`: only the groups the account has, by the id as SendGrid writes it (a deleted group holds
   * nothing, and the group check refuses a push there; so does it `sendgrid:group:007`).
   */
  listsScope(scope: string): boolean {
    const group = GROUP_SCOPE.exec(scope)?.[1];
    if (group === undefined || String(Number(group)) !== group) return false;
    return this.listedGroups?.has(Number(group)) ?? true;
  }

  async apply(operation: SyncOperation): Promise<SyncOutcome> {
    switch (operation.op) {
      case 'suppress':
        await this.add(undefined, [operation.email]);
        return globalOutcome(operation.reason);
      case 'suppressScope': {
        const group = GROUP_SCOPE.exec(operation.scope)?.[1];
        if (group === undefined) return { lists: [] };
        await this.groups.assertExists(group);
        await this.add(group, [operation.email]);
        return { lists: [`group:${group}`] };
      }
      case 'unsuppressScope': {
        const group = GROUP_SCOPE.exec(operation.scope)?.[1];
        if (group === undefined) return { lists: [] };
        // Not checked: a DELETE from a missing group removes nothing and adds nothing anywhere.
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
   * Adds batch: `sendgrid:global` (every `suppress`, whatever its reason: the same global unsubscribe)
   * and `sendgrid:group:<id>` (a `suppressScope` into that group). Removals are one address per DELETE.
   */
  batchKey(operation: SyncOperation): string | undefined {
    if (operation.op === 'suppress') return 'sendgrid:global';
    if (operation.op !== 'suppressScope') return undefined;
    const group = GROUP_SCOPE.exec(operation.scope)?.[1];
    return group === undefined ? undefined : `sendgrid:group:${group}`;
  }

  /**
   * One POST of every address; SendGrid answers for the request as a whole, so each entry answers as
   * `apply`. Into a group the account does not have: every entry refused, nothing posted (each would be
   * refused alone too, so the batcher need not try them one by one).
   */
  async applyMany(operations: readonly SyncOperation[]): Promise<Array<SyncOutcome | SyncRefusedError>> {
    const key = sharedBatchKey(operations, this.maxBatch, (o) => this.batchKey(o));
    // `sendgrid:group:<id>` is the scope's own name; `sendgrid:global` names no group.
    const group = GROUP_SCOPE.exec(key)?.[1];
    if (group !== undefined) {
      try {
        await this.groups.assertExists(group);
      } catch (error) {
        if (error instanceof SyncRefusedError) return operations.map(() => error);
        throw error;
      }
    }
    await this.add(group, batchEmails(operations));
    return operations.map((operation) =>
      operation.op === 'suppress' ? globalOutcome(operation.reason) : { lists: [`group:${group}`] },
    );
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
        // A missing group lists nobody: the lookup claims no add into it, and the push (and its check) follows.
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
    await listSendGrid(this.http, this.base, this.pageLimit, onPage, (listed) => {
      this.listedGroups = listed;
    });
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

  /**
   * .../suppressions-global-suppressions/add-recipient-addresses-to-the-global-suppression-group (no
   * group) or .../suppressions-suppressions/add-suppressions-to-a-suppression-group: 201 for the request
   * as a whole, and an address already there stays.
   */
  private async add(group: string | undefined, emails: readonly string[]): Promise<void> {
    const path = group === undefined ? '/v3/asm/suppressions/global' : `/v3/asm/groups/${group}/suppressions`;
    await this.http.send({
      method: 'POST',
      url: `${this.base}${path}`,
      label: group === undefined ? `POST ${path}` : 'POST /v3/asm/groups/{group_id}/suppressions',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ recipient_emails: emails }),
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
