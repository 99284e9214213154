/**
 * The address page: "why can't we email this person?" answered on one page (the record, its evidence
 * with the raw events the inbox still holds, topics, each provider's sync state, the audit), and the
 * three manual actions behind a confirmation step (address-actions.ts).
 */
import type { InboxRow } from '../../lambdas/adapters/dynamodb-inbox.js';
import { actionForms, DONE_NOTICES } from './address-actions.js';
import { auditTable, evidenceTable, type StoredRecord, summary, syncTable, topicsTable } from './address-sections.js';
import { type Html, html } from './html.js';
import { describeTarget, type Route, type Services } from './services.js';
import { timeline } from './timeline.js';

/** Inbox reads for one page run this many at a time (the timeline holds a few dozen entries at most). */
const ROW_READS = 8;

export { addressAction, confirmAddressAction } from './address-actions.js';

export const addressPage: Route = async (request, services) => {
  const given = request.query.get('email')?.trim() ?? '';
  const body: Html[] = [searchForm(given)];
  if (given !== '') {
    const email = services.ctx.address(given);
    const done = request.query.get('done') ?? '';
    if (Object.hasOwn(DONE_NOTICES, done)) body.push(html`<p class="notice" role="status">${DONE_NOTICES[done]}</p>`);
    body.push(await recordSections(email, services));
  }
  return {
    page: {
      title: given === '' ? 'Address' : `Address ${given.toLowerCase()}`,
      section: 'address',
      target: describeTarget(services),
      body: html`${body}`,
    },
  };
};

function searchForm(given: string): Html {
  return html`<form method="get" action="/address" role="search">
<label for="email">Email address</label>
<div class="row"><div><input id="email" name="email" type="text" inputmode="email" autocomplete="off" size="40" value="${given}" required></div>
<div><button type="submit">Search</button></div></div>
<p class="muted">Normalized as the pipeline does: trimmed and lower-cased.</p>
</form>`;
}

async function recordSections(email: string, services: Services): Promise<Html> {
  const record = (await services.ctx.suppressions().get(email)) as StoredRecord | undefined;
  if (!record)
    return html`<h2>${email}</h2><p>No record: this address may be sent to.</p>${actionForms(email, undefined, services)}`;
  const entries = timeline(record);
  const rows = await inboxRows(
    services,
    entries.flatMap((e) => (e.inboxKey ? [e.inboxKey] : [])),
  );
  return html`<h2>${email}</h2>
${summary(record)}
<h2>Evidence</h2>
${evidenceTable(entries, rows)}
<h2>Topics</h2>
${topicsTable(record)}
<h2>Sync with each provider</h2>
${syncTable(record)}
<h2>Audit</h2>
${auditTable(record)}
${actionForms(email, record, services)}`;
}

async function inboxRows(services: Services, keys: string[]): Promise<Map<string, InboxRow | undefined>> {
  const inbox = services.ctx.inbox();
  const unique = [...new Set(keys)];
  const rows = new Map<string, InboxRow | undefined>();
  for (let i = 0; i < unique.length; i += ROW_READS) {
    const batch = unique.slice(i, i + ROW_READS);
    const read = await Promise.all(batch.map((key) => inbox.get(key)));
    for (const [j, key] of batch.entries()) rows.set(key, read[j]);
  }
  return rows;
}
