/**
 * Bulk reactivation of a filtered view: only its suppressed records, one reason for all, each one an
 * audited reactivation through the same store as `ratchet suppressions reactivate`. The confirmation
 * page states the count; the POST counts again and goes ahead only if the count is still the one
 * confirmed (else it asks again), so what is reactivated is what the operator saw.
 */
import { readSuppressionPage } from '../../lambdas/adapters/dynamodb-suppression-pages.js';
import { InputError } from '../cli/context.js';
import { CONSOLE } from '../definitions.js';
import { REASON_MAX } from './address-actions.js';
import { describeFilter, filterParams, type ListFilter, matches, readFilter } from './filters.js';
import { type Html, html, query } from './html.js';
import { describeTarget, type Reply, type Route, type Services } from './services.js';

const COUNT_PAGE = 1_000;
/** The audited reason's field: `reason` is the filter's (a suppression reason) in the same form. */
const AUDIT_REASON = 'auditReason';

interface Selection {
  emails: string[];
  tooMany: boolean;
}

async function select(filter: ListFilter, services: Services): Promise<Selection> {
  const suppressed: ListFilter = { ...filter, status: 'suppressed' };
  const aliases = services.ctx.policy().topicAliases;
  const deadline = services.now() + CONSOLE.scanDeadlineMs;
  const emails: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await readSuppressionPage(services.ctx.doc, services.ctx.target.suppressionTable, {
      pageSize: COUNT_PAGE,
      cursor,
      matches: (record) => matches(suppressed, record, aliases),
      deadlineMs: deadline,
    });
    emails.push(...page.records.map((r) => r.email));
    if (emails.length > CONSOLE.bulkMax) return { emails, tooMany: true };
    cursor = page.next;
    if (cursor && services.now() >= deadline)
      throw new InputError(
        `counting this selection took over ${CONSOLE.scanDeadlineMs / 1000} s: narrow the filter, or use \`npx ratchet suppressions export\` and the CLI`,
      );
  } while (cursor);
  return { emails, tooMany: false };
}

function confirmPage(filter: ListFilter, selection: Selection, services: Services, notice?: Html): Reply {
  const count = selection.emails.length;
  const params = filterParams(filter);
  const hidden = Object.entries(params).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`);
  const body = selection.tooMany
    ? html`<p class="problem">More than ${CONSOLE.bulkMax} suppressed records match (${describeFilter(filter)}): narrow the filter.</p>`
    : count === 0
      ? html`<p>No suppressed record matches (${describeFilter(filter)}): nothing to reactivate.</p>`
      : html`<p><strong>${count}</strong> suppressed records match (${describeFilter(filter)}).</p>
<form method="post" action="/lists/reactivate"><fieldset><legend>Reactivate ${count} records</legend>
<input type="hidden" name="csrf" value="${services.csrf}">${hidden}<input type="hidden" name="count" value="${count}">
<div class="row"><div><label for="bulk-reason">Reason (required, audited as ${services.actor} on each record)</label>
<input id="bulk-reason" name="${AUDIT_REASON}" type="text" maxlength="${REASON_MAX}" size="40" required></div>
<div><button type="submit" class="danger">Confirm: reactivate ${count} records</button></div></div></fieldset></form>`;
  return {
    page: {
      title: 'Reactivate a filtered selection',
      section: 'lists',
      target: describeTarget(services),
      body: html`${notice ?? ''}${body}<p><a href="/lists${query(params)}">Back to the list</a></p>`,
    },
  };
}

export const bulkConfirm: Route = async (request, services) => {
  const filter = readFilter(request.query);
  return confirmPage(filter, await select(filter, services), services);
};

export const bulkReactivate: Route = async (request, services) => {
  const filter = readFilter(request.form);
  const reason = request.form.get(AUDIT_REASON)?.trim() ?? '';
  if (reason === '') throw new InputError('a reason is required: manual actions are audited');
  if (reason.length > REASON_MAX) throw new InputError(`the reason is longer than ${REASON_MAX} characters`);
  const confirmed = Number(request.form.get('count'));
  const selection = await select(filter, services);
  if (selection.tooMany || selection.emails.length !== confirmed)
    return confirmPage(
      filter,
      selection,
      services,
      html`<p class="problem" role="status">The selection changed since you confirmed ${Number.isFinite(confirmed) ? confirmed : '?'}: nothing was reactivated. Check the new count.</p>`,
    );
  const store = services.ctx.suppressions();
  const at = services.now();
  const failed: string[] = [];
  const queue = [...selection.emails];
  const worker = async () => {
    for (let email = queue.shift(); email !== undefined; email = queue.shift()) {
      try {
        await store.reactivate(email, { actor: services.actor, reason, at });
      } catch {
        failed.push(email);
      }
    }
  };
  await Promise.all(Array.from({ length: CONSOLE.bulkConcurrency }, worker));
  const done = selection.emails.length - failed.length;
  return {
    page: {
      title: 'Reactivated',
      section: 'lists',
      target: describeTarget(services),
      body: html`<p class="notice" role="status">Reactivated ${done} of ${selection.emails.length} records (reason: ${reason}; audited as ${services.actor}).</p>
${failed.length ? html`<p class="problem">Not reactivated (the store refused or did not answer; retry them one by one): ${failed.join(', ')}</p>` : ''}
<p><a href="/lists${query(filterParams(filter))}">Back to the list</a></p>`,
    },
  };
};
