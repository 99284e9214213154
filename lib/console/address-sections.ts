/** The address page's tables: the record's summary, the evidence timeline, topics, sync state and audit. */
import type { InboxRow } from '../../lambdas/adapters/dynamodb-inbox.js';
import type { SuppressionRecord } from '../../lambdas/core/suppression/index.js';
import type { SyncMap } from '../../lambdas/core/sync/state.js';
import { type Html, html, time } from './html.js';
import { redactPayload } from './redact.js';
import { providerDetail, type TimelineEntry } from './timeline.js';

export type StoredRecord = SuppressionRecord & { sync?: SyncMap; syncChange?: number };

export function badge(status: string): Html {
  return html`<span class="badge ${status === 'suppressed' ? 'suppressed' : 'active'}">${status}</span>`;
}

export function summary(record: StoredRecord): Html {
  return html`<dl class="facts">
<dt>Status</dt><dd>${badge(record.status)}</dd>
<dt>Transactional status</dt><dd>${badge(record.transactionalStatus)}</dd>
<dt>Reasons</dt><dd>${record.reasons.length ? record.reasons.join(', ') : 'none'}</dd>
<dt>Suppressed since</dt><dd>${time(record.suppressedAt)}</dd>
<dt>Last event</dt><dd>${time(record.lastEventAt)}</dd>
<dt>Last reactivated</dt><dd>${time(record.reactivatedAt)}</dd>
</dl>`;
}

export function evidenceTable(entries: TimelineEntry[], rows: Map<string, InboxRow | undefined>): Html {
  if (entries.length === 0) return html`<p>No evidence.</p>`;
  const body = entries.map((e) => {
    const row = e.inboxKey ? rows.get(e.inboxKey) : undefined;
    const detail = providerDetail(e);
    return html`<tr${e.standing === 'discounted' ? html` class="discounted-row"` : ''}>
<td>${time(e.occurredAt)}</td>
<td>${e.kind}</td>
<td>${e.provider}</td>
<td>${standing(e)}</td>
<td><span class="key">${e.messageId ?? '—'}</span></td>
<td>${e.actor ? html`${e.actor}${e.note ? html`: ${e.note}` : ''}` : '—'}</td>
<td>${detail.length ? html`<dl>${detail.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>` : '—'}</td>
<td>${raw(e, row)}</td>
</tr>`;
  });
  return html`<div class="scroll"><table>
<caption class="muted">Newest first. Discounted evidence was dated before a reactivation: kept to explain the past, it no longer counts.</caption>
<thead><tr><th scope="col">When</th><th scope="col">Kind</th><th scope="col">Provider</th><th scope="col">Standing</th><th scope="col">Message id</th><th scope="col">Actor</th><th scope="col">Provider detail</th><th scope="col">Raw event</th></tr></thead>
<tbody>${body}</tbody></table></div>`;
}

function standing(e: TimelineEntry): Html {
  if (e.standing === 'discounted')
    return html`<strong>discounted</strong> <span class="discounted">(no longer counts)</span>`;
  if (e.standing === 'topic') return html`topic ${e.topic}`;
  return html`${e.standing}`;
}

function raw(e: TimelineEntry, row: InboxRow | undefined): Html {
  if (!e.inboxKey) return html`<span class="muted">none (${e.provider === 'manual' ? 'manual' : 'imported'})</span>`;
  if (!row?.raw) return html`<span class="muted">no longer in the inbox</span>`;
  return html`<details><summary>Show <span class="muted key">${e.inboxKey}</span></summary><pre>${redactPayload(row.raw)}</pre></details>`;
}

export function topicsTable(record: SuppressionRecord): Html {
  const topics = Object.entries(record.topics ?? {});
  if (topics.length === 0) return html`<p>No topic changes.</p>`;
  return html`<div class="scroll"><table><thead><tr><th scope="col">Topic</th><th scope="col">State</th><th scope="col">Since</th></tr></thead>
<tbody>${topics.map(([topic, state]) => html`<tr><td>${topic}</td><td>${state.status}</td><td>${time(state.changedAt)}</td></tr>`)}</tbody></table></div>`;
}

export function syncTable(record: StoredRecord): Html {
  const providers = Object.entries(record.sync ?? {});
  if (providers.length === 0) return html`<p>Nothing pushed to any provider yet (or sync is off).</p>`;
  const rows = providers.map(([provider, state]) => {
    if (!state) return '';
    const caughtUp = record.syncChange === undefined || state.change === record.syncChange;
    const scopes = Object.entries(state.scopes ?? {}).map(([scope, lists]) => `${scope}: ${lists.join(', ')}`);
    return html`<tr><td>${provider}</td>
<td>${state.lists.length ? html`blocked on ${state.lists.join(', ')}${state.reason ? ` (${state.reason})` : ''}` : 'not blocked'}${scopes.length ? html`<br>topics: ${scopes.join('; ')}` : ''}</td>
<td>${time(state.at)}</td>
<td>${state.failed ? html`<strong>failed</strong>: ${state.failed.error}` : caughtUp ? 'caught up' : 'pending'}</td>
<td>${state.refused?.length ? state.refused.map((r) => `${r.list}: ${r.why}`).join('; ') : '—'}</td></tr>`;
  });
  return html`<div class="scroll"><table><thead><tr><th scope="col">Provider</th><th scope="col">At the provider</th><th scope="col">Since</th><th scope="col">Sync</th><th scope="col">Refused removals</th></tr></thead>
<tbody>${rows}</tbody></table></div>`;
}

export function auditTable(record: SuppressionRecord): Html {
  if ((record.audit ?? []).length === 0) return html`<p>No manual actions.</p>`;
  return html`<div class="scroll"><table><thead><tr><th scope="col">When</th><th scope="col">Action</th><th scope="col">Actor</th><th scope="col">Reason</th><th scope="col">Topic</th></tr></thead>
<tbody>${[...record.audit].reverse().map((a) => html`<tr><td>${time(a.at)}</td><td>${a.action}</td><td>${a.actor}</td><td>${a.reason}</td><td>${a.topic ?? '—'}</td></tr>`)}</tbody></table></div>`;
}
