/**
 * SendGrid's lists as `sync reconcile` reads them: the five /v3/suppression lists, page by page, then every
 * unsubscribe group's members. Reads only.
 *
 * Reference: https://www.twilio.com/docs/sendgrid/api-reference (pages cited beside each call).
 */
import type { ProviderListEntry } from '../../core/sync/target.js';
import type { ProviderHttp } from './http.js';

export const GLOBAL = 'global_unsubscribes';

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

/**
 * Every entry of every list, page by page. `onGroups` is handed the set of the account's unsubscribe
 * group ids once SendGrid has listed the groups, and the set fills as their members are read. A group
 * deleted between the two reads is left out of the set (so its topic opt-outs are not compared, and
 * reconcile says so), not a failed run.
 */
export async function listSendGrid(
  http: ProviderHttp,
  base: string,
  pageLimit: number,
  onPage: (entries: readonly ProviderListEntry[]) => Promise<void> | void,
  onGroups: (listed: Set<number>) => void,
): Promise<void> {
  for (const source of READ_LISTS) {
    for (let offset = 0; ; offset += pageLimit) {
      const answer = await http.send({
        method: 'GET',
        url: `${base}/v3/suppression/${source.path}?limit=${pageLimit}&offset=${offset}`,
        label: `GET /v3/suppression/${source.path}`,
      });
      const items = Array.isArray(answer.body) ? (answer.body as SendGridItem[]) : [];
      const entries = items
        .filter((i) => typeof i.email === 'string')
        .map((i) => entry(i, source.list, 'informational' in source));
      await onPage(entries);
      if (items.length < pageLimit) break;
    }
  }
  // .../suppressions-unsubscribe-groups/retrieve-all-suppression-groups-associated-with-the-user (at most 200 groups)
  const groups = await http.send({ method: 'GET', url: `${base}/v3/asm/groups`, label: 'GET /v3/asm/groups' });
  const listed = new Set<number>();
  onGroups(listed);
  await onPage([]);
  for (const group of Array.isArray(groups.body) ? (groups.body as { id?: unknown }[]) : []) {
    if (typeof group.id !== 'number') continue;
    // .../suppressions-suppressions/retrieve-all-suppressions-for-a-suppression-group: every address, unpaged.
    // The page documents no answer for a group gone since the list; a 404 is taken as that.
    const members = await http.send({
      method: 'GET',
      url: `${base}/v3/asm/groups/${group.id}/suppressions`,
      label: 'GET /v3/asm/groups/{group_id}/suppressions',
      accept: [404],
    });
    if (members.status === 404) {
      await onPage([]);
      continue;
    }
    listed.add(group.id);
    const emails = Array.isArray(members.body) ? members.body.filter((e): e is string => typeof e === 'string') : [];
    await onPage(emails.map((email) => ({ email, list: `group:${group.id}`, scope: `sendgrid:group:${group.id}` })));
  }
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
