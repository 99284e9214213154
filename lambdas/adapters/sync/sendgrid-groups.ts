/**
 * Whether a SendGrid unsubscribe group exists, asked before every add into one. SendGrid does not refuse
 * an add into a group it does not have: "If you attempt to add suppressions to a group that has been
 * deleted or does not exist, the suppressions will be added to the global suppressions list."
 * (.../suppressions-suppressions/add-suppressions-to-a-suppression-group), with the same 201 as a group
 * add. A topic opt-out pushed to a deleted group, or to a typo in TOPIC_ALIASES, would thus silently stop
 * every send to an address that only left one topic. So the add is refused here instead (SyncRefusedError:
 * dead-lettered and shown by `sync status`, as every refusal), and nothing is posted.
 *
 * The check reads the account's whole list, GET /v3/asm/groups
 * (.../suppressions-unsubscribe-groups/retrieve-all-suppression-groups-associated-with-the-user: an array
 * of every group, at most 200 an account, unpaged), rather than GET /v3/asm/groups/{group_id} for each
 * group: the list's answer for a missing group is documented (it is not in the array), while the single
 * group's page documents only its 200, so what it answers for a missing one is not SendGrid's word; and
 * one read answers for every group, so a burst into several groups costs one read a window, not one each.
 *
 * The answer is kept for SENDGRID_GROUP_CHECK_MS per target (one per worker process): groups change by hand,
 * rarely, so reading them again before every push would double SendGrid calls for nothing. The residual
 * risk is a group deleted inside the window: until the window ends, adds into it still go to SendGrid,
 * which puts them on the global list. A read that fails is not kept (the next add reads again).
 */
import { SyncRefusedError, SyncTransientError } from '../../core/sync/target.js';
import type { ProviderHttp } from './http.js';

/**
 * How long one read of the account's groups is trusted: 5 minutes. At most one extra SendGrid read per
 * worker process in that time, whatever the traffic (SendGrid limits each endpoint on its own, per the
 * rate-limits page), and a group deleted by hand is seen within 5 minutes, the window in which an add into
 * it can still land on the global list.
 */
export const SENDGRID_GROUP_CHECK_MS = 5 * 60_000;

const LABEL = 'GET /v3/asm/groups';

export class SendGridGroups {
  private known?: { readonly ids: ReadonlySet<string>; readonly at: number };
  /** The read under way: a burst of adds waits on one read rather than making one each. */
  private reading?: Promise<ReadonlySet<string>>;

  constructor(
    private readonly http: ProviderHttp,
    private readonly base: string,
    readonly windowMs = SENDGRID_GROUP_CHECK_MS,
  ) {}

  /**
   * Resolves when `group` (the digits of a `sendgrid:group:<id>` scope) is one of the account's groups, as
   * SendGrid writes its id; throws SyncRefusedError (404) when it is not, and the read's own errors
   * (SyncRateLimitedError, SyncTransientError) as a push's. The message names the group, never an address.
   */
  async assertExists(group: string): Promise<void> {
    const ids = await this.current();
    if (!ids.has(group))
      throw new SyncRefusedError(
        'sendgrid',
        404,
        `sendgrid group ${group} is not one of the account's unsubscribe groups (${LABEL}): not pushed, since SendGrid adds a suppression for a missing group to the global unsubscribes; check TOPIC_ALIASES`,
      );
  }

  private current(): Promise<ReadonlySet<string>> {
    const now = this.http.now();
    const known = this.known;
    if (known && now >= known.at && now - known.at < this.windowMs) return Promise.resolve(known.ids);
    this.reading ??= this.read().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  private async read(): Promise<ReadonlySet<string>> {
    // The window counts from before the request: an answer is never trusted longer than it is old.
    const at = this.http.now();
    const answer = await this.http.send({ method: 'GET', url: `${this.base}/v3/asm/groups`, label: LABEL });
    // Not the documented array: nothing can be told from it, and posting anyway could go global.
    if (!Array.isArray(answer.body))
      throw new SyncTransientError('sendgrid', `sendgrid ${LABEL}: not a list of groups`);
    const ids = new Set(
      (answer.body as { id?: unknown }[])
        .map((group) => group?.id)
        .filter((id): id is number => Number.isSafeInteger(id))
        .map(String),
    );
    this.known = { ids, at };
    return ids;
  }
}
