/**
 * The lists: the suppression table filtered, 50 a page, paged with a cursor (the key the previous page
 * stopped at), never the whole table in memory; the filtered view as CSV in the export's format
 * (`ratchet suppressions export --format csv`, which `ratchet suppressions import --format csv` reads back).
 */
import { BadCursorError, readSuppressionPage } from '../../lambdas/adapters/dynamodb-suppression-pages.js';
import { SUPPRESSION_REASONS } from '../../lambdas/core/suppression/index.js';
import { InputError } from '../cli/context.js';
import { EXPORT_CSV_COLUMNS, exportCsvRow } from '../cli/export-format.js';
import { CONSOLE } from '../definitions.js';
import { badge } from './address-sections.js';
import { EVIDENCE_PROVIDERS, filterParams, type ListFilter, matches, readFilter, STATUSES } from './filters.js';
import { type Html, html, query, time } from './html.js';
import { describeTarget, type Route } from './services.js';

const EXPORT_SEGMENTS = 4;

export const listsPage: Route = async (request, services) => {
  const filter = readFilter(request.query);
  const aliases = services.ctx.policy().topicAliases;
  const cursor = request.query.get('cursor') ?? undefined;
  let page: Awaited<ReturnType<typeof readSuppressionPage>>;
  try {
    page = await readSuppressionPage(services.ctx.doc, services.ctx.target.suppressionTable, {
      pageSize: CONSOLE.pageSize,
      cursor,
      matches: (record) => matches(filter, record, aliases),
      deadlineMs: services.now() + CONSOLE.pageDeadlineMs,
    });
  } catch (error) {
    if (error instanceof BadCursorError) throw new InputError('cursor: not one this console wrote');
    throw error;
  }
  const params = filterParams(filter);
  const rows = page.records.map(
    (r) => html`<tr><td><a href="/address${query({ email: r.email })}">${r.email}</a></td><td>${badge(r.status)}</td>
<td>${r.reasons.join(', ') || '—'}</td><td>${time(r.suppressedAt)}</td><td>${time(r.lastEventAt)}</td></tr>`,
  );
  const body = html`${filterForm(filter)}
<p><a href="/lists.csv${query(params)}">Export this filtered view as CSV</a> ·
<a href="/lists/reactivate${query(params)}">Reactivate the suppressed records of this view…</a></p>
<div class="scroll"><table><caption class="muted">${page.records.length} records on this page (${page.scanned} examined)</caption>
<thead><tr><th scope="col">Address</th><th scope="col">Status</th><th scope="col">Reasons</th><th scope="col">Suppressed since</th><th scope="col">Last event</th></tr></thead>
<tbody>${rows}</tbody></table></div>
${page.stoppedEarly ? html`<p class="muted" role="status">This page stopped after ${CONSOLE.pageDeadlineMs / 1000} s of reading: more matching records may follow.</p>` : ''}
<nav aria-label="Pages"><p>${cursor ? html`<a href="/lists${query(params)}">First page</a>` : ''}
${page.next ? html` <a href="/lists${query({ ...params, cursor: page.next })}" rel="next">Next page</a>` : html` <span class="muted">End of the table.</span>`}</p></nav>`;
  return { page: { title: 'Lists', section: 'lists', target: describeTarget(services), body } };
};

function filterForm(filter: ListFilter): Html {
  const select = (name: string, label: string, values: readonly string[], current?: string) =>
    html`<div><label for="f-${name}">${label}</label><select id="f-${name}" name="${name}"><option value="">any</option>
${values.map((v) => html`<option value="${v}"${v === current ? html` selected` : ''}>${v}</option>`)}</select></div>`;
  return html`<form method="get" action="/lists"><fieldset><legend>Filter</legend><div class="row">
${select('status', 'Status', STATUSES, filter.status)}
${select('reason', 'Reason', SUPPRESSION_REASONS, filter.reason)}
${select('provider', 'Provider', EVIDENCE_PROVIDERS, filter.provider)}
<div><label for="f-topic">Topic</label><input id="f-topic" name="topic" type="text" value="${filter.topic ?? ''}"></div>
<div><label for="f-from">Suppressed from</label><input id="f-from" name="from" type="date" value="${filter.from ?? ''}"></div>
<div><label for="f-to">Suppressed to</label><input id="f-to" name="to" type="date" value="${filter.to ?? ''}"></div>
<div><button type="submit">Filter</button></div></div></fieldset></form>`;
}

export const listsCsv: Route = async (request, services) => {
  const filter = readFilter(request.query);
  const aliases = services.ctx.policy().topicAliases;
  return {
    contentType: 'text/csv; charset=utf-8',
    disposition: 'attachment; filename="suppressions.csv"',
    async stream(write) {
      await write(`${EXPORT_CSV_COLUMNS.join(',')}\n`);
      await services.ctx.suppressions().scan({ status: filter.status, segments: EXPORT_SEGMENTS }, async (records) => {
        for (const record of records) if (matches(filter, record, aliases)) await write(`${exportCsvRow(record)}\n`);
      });
    },
  };
};
