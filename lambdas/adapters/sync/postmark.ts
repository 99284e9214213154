/**
 * Postmark keeps one suppression list per message stream. A global suppression goes to every stream in
 * POSTMARK_STREAMS; a topic scope `postmark:stream:<id>` to that stream only.
 *
 * Reference: https://postmarkapp.com/developer/api/suppressions-api (create, delete, dump) and
 * https://postmarkapp.com/developer/api/overview (X-Postmark-Server-Token, 401/422/429).
 * - Postmark stores every suppression it is given as `ManualSuppression`, whatever Ratchet's reason.
 * - Postmark answers 200 per request and a Status per address: `Failed` is permanent (a SpamComplaint
 *   suppression cannot be deleted, an address Postmark finds invalid cannot be added), so it is reported in
 *   `refused`, never thrown (a throw would be retried for an hour for nothing).
 * - Postmark publishes no rate-limit reset header: a 429 without Retry-After pauses for the default.
 * - Adds batch (applyMany): one request per stream carries up to 50 addresses, each answered with its
 *   own Status, so a `Failed` address is refused in its own outcome exactly as `apply` would refuse it.
 */
import type { ProviderListEntry, SyncOperation, SyncOutcome, SyncTarget } from '../../core/sync/target.js';
import { batchEmails, sharedBatchKey } from './batch.js';
import { type HttpDeps, ProviderHttp, pathSegment, scrub } from './http.js';
import { foreignLists, type Refusal, removalOutcome } from './removal.js';
import { providerHandlesScope, STREAM_SCOPE } from './scopes.js';

export interface PostmarkSyncConfig {
  readonly serverToken: string;
  readonly apiUrl: string;
  /** The streams a global suppression goes to. */
  readonly streams: readonly string[];
  /** Streams used as topics (from the topic aliases): listed by reconcile with their scope. */
  readonly topicStreams?: readonly string[];
}

const STREAM_LIST = /^stream:(.+)$/;
/**
 * The most addresses one `Suppressions` array carries, create or delete: 50
 * (https://postmarkapp.com/developer/api/suppressions-api, "Create a Suppression"; Postmark's own
 * OpenAPI-derived clients say the same: "Suppress up to 50 addresses on a message stream"). A body of 50
 * is at most ~17 KB.
 */
export const MAX_SUPPRESSIONS = 50;
const GLOBAL_KEY = 'postmark:global';

/** What one address came to across the streams of one change. */
interface Changed {
  readonly lists: string[];
  readonly refused: Refusal[];
}

interface StatusRow {
  EmailAddress?: unknown;
  Status?: unknown;
  Message?: unknown;
}

export class PostmarkSyncTarget implements SyncTarget {
  readonly provider = 'postmark' as const;
  readonly maxBatch = MAX_SUPPRESSIONS;
  private readonly http: ProviderHttp;
  private readonly base: string;

  constructor(
    private readonly config: PostmarkSyncConfig,
    deps: HttpDeps = {},
  ) {
    this.base = config.apiUrl.replace(/\/+$/, '');
    this.http = new ProviderHttp(
      {
        provider: 'postmark',
        headers: { 'x-postmark-server-token': config.serverToken },
        secrets: [config.serverToken],
      },
      deps,
    );
  }

  handlesScope(scope: string): boolean {
    return providerHandlesScope('postmark', scope);
  }

  /** Only the streams `list` reads: POSTMARK_STREAMS and the streams TOPIC_ALIASES names. */
  listsScope(scope: string): boolean {
    const stream = STREAM_SCOPE.exec(scope)?.[1];
    return stream !== undefined && this.listedStreams().includes(stream);
  }

  private listedStreams(): string[] {
    return [...new Set([...this.config.streams, ...(this.config.topicStreams ?? [])])];
  }

  async apply(operation: SyncOperation): Promise<SyncOutcome> {
    switch (operation.op) {
      case 'suppress': {
        const [changed] = await this.change('add', this.config.streams, [operation.email]);
        return outcome(changed!, { providerReason: 'ManualSuppression' });
      }
      case 'suppressScope':
      case 'unsuppressScope': {
        const stream = STREAM_SCOPE.exec(operation.scope)?.[1];
        if (stream === undefined) return { lists: [] };
        const [changed] = await this.change(
          operation.op === 'suppressScope' ? 'add' : 'delete',
          [stream],
          [operation.email],
        );
        return outcome(changed!, {});
      }
      case 'unsuppress': {
        const streams = operation.lists
          .map((l) => STREAM_LIST.exec(l)?.[1])
          .filter((s): s is string => s !== undefined);
        const unknown = foreignLists(operation.lists, (l) => STREAM_LIST.test(l), 'Postmark');
        const [changed] = await this.change('delete', streams, [operation.email]);
        return removalOutcome(changed!.lists, [...changed!.refused, ...unknown]);
      }
    }
  }

  /**
   * Adds batch: `postmark:global` (every `suppress`: every stream in POSTMARK_STREAMS) and
   * `postmark:stream:<id>` (a `suppressScope` into that stream). Removals go alone (they are urgent).
   */
  batchKey(operation: SyncOperation): string | undefined {
    if (operation.op === 'suppress') return GLOBAL_KEY;
    if (operation.op !== 'suppressScope') return undefined;
    const stream = STREAM_SCOPE.exec(operation.scope)?.[1];
    return stream === undefined ? undefined : `postmark:stream:${stream}`;
  }

  /** One POST per stream `apply` would post to, all addresses in it; each entry is that address's own answer. */
  async applyMany(operations: readonly SyncOperation[]): Promise<SyncOutcome[]> {
    const key = sharedBatchKey(operations, this.maxBatch, (o) => this.batchKey(o));
    const streams = key === GLOBAL_KEY ? this.config.streams : [STREAM_SCOPE.exec(key)![1]!];
    const emails = batchEmails(operations);
    const changed = await this.change('add', streams, emails);
    return operations.map((operation) =>
      outcome(
        changed[emails.indexOf(operation.email)]!,
        operation.op === 'suppress' ? { providerReason: 'ManualSuppression' } : {},
      ),
    );
  }

  /**
   * Reads only: GET .../suppressions/dump?EmailAddress=<address>, one call per stream asked. Postmark
   * applies a new suppression asynchronously (about a minute), so an add lost less than a minute before
   * the lookup may not show yet: it is pushed again, which Postmark answers `Suppressed` and changes nothing.
   * A removal refused before (a SpamComplaint) is still there, so it is asked again and refused again.
   */
  async held(operation: SyncOperation): Promise<SyncOutcome | undefined> {
    const { email } = operation;
    if (operation.op === 'suppressScope' || operation.op === 'unsuppressScope') {
      const stream = STREAM_SCOPE.exec(operation.scope)?.[1];
      if (stream === undefined) return undefined;
      const there = await this.holds(stream, email);
      return there === (operation.op === 'suppressScope') ? { lists: [`stream:${stream}`] } : undefined;
    }
    if (operation.op === 'suppress') {
      for (const stream of this.config.streams) if (!(await this.holds(stream, email))) return undefined;
      return { lists: this.config.streams.map((s) => `stream:${s}`), providerReason: 'ManualSuppression' };
    }
    const streams = operation.lists.filter((l) => STREAM_LIST.test(l));
    for (const list of streams) if (await this.holds(STREAM_LIST.exec(list)![1]!, email)) return undefined;
    return removalOutcome(
      streams,
      foreignLists(operation.lists, (l) => STREAM_LIST.test(l), 'Postmark'),
    );
  }

  private async holds(stream: string, email: string): Promise<boolean> {
    const answer = await this.http.send({
      method: 'GET',
      url: `${this.base}/message-streams/${pathSegment(stream)}/suppressions/dump?EmailAddress=${encodeURIComponent(email)}`,
      label: 'GET /message-streams/{stream}/suppressions/dump?EmailAddress={email}',
    });
    const rows = (answer.body as { Suppressions?: unknown } | undefined)?.Suppressions;
    return (Array.isArray(rows) ? (rows as StatusRow[]) : []).some(
      (r) => typeof r.EmailAddress === 'string' && r.EmailAddress.toLowerCase() === email.toLowerCase(),
    );
  }

  async list(onPage: (entries: readonly ProviderListEntry[]) => Promise<void> | void): Promise<void> {
    // A stream named as a topic is listed with its scope even when global suppressions go there too:
    // an entry there may be a topic opt-out, and must never be read as a global suppression. So is a
    // ManualSuppression in any stream: the consumer stores that SubscriptionChange (a recipient's
    // unsubscribe) as an opt-out of topic postmark:stream:<stream>, aliased or not, never as global.
    const globalStreams = new Set(this.config.streams);
    const topicStreams = new Set(this.config.topicStreams ?? []);
    const streams = this.listedStreams();
    for (const stream of streams) {
      // GET .../suppressions/dump: the whole stream in one answer (Postmark does not page it).
      const answer = await this.http.send({
        method: 'GET',
        url: `${this.base}/message-streams/${pathSegment(stream)}/suppressions/dump`,
        label: 'GET /message-streams/{stream}/suppressions/dump',
      });
      const rows = ((answer.body as { Suppressions?: unknown } | undefined)?.Suppressions ?? []) as Record<
        string,
        unknown
      >[];
      const entries: ProviderListEntry[] = (Array.isArray(rows) ? rows : [])
        .filter((r) => typeof r.EmailAddress === 'string')
        .map((r) => {
          const date = typeof r.CreatedAt === 'string' ? Date.parse(r.CreatedAt) : Number.NaN;
          const scoped = topicStreams.has(stream) || r.SuppressionReason === 'ManualSuppression';
          return {
            email: r.EmailAddress as string,
            list: `stream:${stream}`,
            ...(scoped ? { scope: `postmark:stream:${stream}` } : {}),
            ...(scoped && globalStreams.has(stream) ? { globalList: true } : {}),
            ...(typeof r.SuppressionReason === 'string' ? { reason: r.SuppressionReason } : {}),
            ...(Number.isNaN(date) ? {} : { date }),
          };
        });
      await onPage(entries);
    }
  }

  /**
   * POST .../suppressions (add) or .../suppressions/delete, one stream at a time, every address in each
   * request; answers what each address came to, in the order of `emails`. Adding an address already
   * suppressed answers Suppressed again, and deleting one that is not there answers Deleted: both idempotent.
   */
  private async change(
    kind: 'add' | 'delete',
    streams: readonly string[],
    emails: readonly string[],
  ): Promise<Changed[]> {
    const changed: Changed[] = emails.map(() => ({ lists: [], refused: [] }));
    for (const stream of streams) {
      const answer = await this.http.send({
        method: 'POST',
        url: `${this.base}/message-streams/${pathSegment(stream)}/suppressions${kind === 'delete' ? '/delete' : ''}`,
        label: `POST /message-streams/{stream}/suppressions${kind === 'delete' ? '/delete' : ''}`,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ Suppressions: emails.map((email) => ({ EmailAddress: email })) }),
      });
      const rows = ((answer.body as { Suppressions?: unknown } | undefined)?.Suppressions ?? []) as StatusRow[];
      emails.forEach((email, i) => {
        const row = Array.isArray(rows)
          ? rows.find((r) => typeof r.EmailAddress === 'string' && r.EmailAddress.toLowerCase() === email.toLowerCase())
          : undefined;
        if (row?.Status === 'Failed') {
          changed[i]!.refused.push({
            list: `stream:${stream}`,
            why: scrub(typeof row.Message === 'string' ? row.Message : 'Failed', [this.config.serverToken]),
          });
        } else {
          changed[i]!.lists.push(`stream:${stream}`);
        }
      });
    }
    return changed;
  }
}

/** The outcome of an add or a scope change: `extra` only where a stream took it, `refused` only when one did not. */
function outcome(changed: Changed, extra: { providerReason?: string }): SyncOutcome {
  const { lists, refused } = changed;
  return { lists, ...(lists.length > 0 ? extra : {}), ...(refused.length > 0 ? { refused } : {}) };
}
