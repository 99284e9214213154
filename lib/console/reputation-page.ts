/**
 * Reputation: per sender and provider, bounce and complaint rates over 24 hours and 7 days (the
 * reputation reader's `listSenders`), and for one sender the hourly rates over 7 days as SVG charts
 * with the warn and breach thresholds (`hourlySeries`), judged with the same thresholds as the
 * evaluator (REPUTATION_* variables, read as the CLI reads them).
 */
import { DynamoReputationReader, type SenderStatus } from '../../lambdas/adapters/dynamodb-reputation.js';
import {
  attempts,
  type ReputationThresholds,
  thresholdsFromSettings,
  WINDOW_HOURS,
} from '../../lambdas/core/reputation/index.js';
import { InputError } from '../cli/context.js';
import { type Html, html, query } from './html.js';
import { rateChart } from './rate-chart.js';
import { describeTarget, type Route, type Services } from './services.js';

const percent = (x: number) => `${Number((x * 100).toPrecision(3))} %`;
const SENDER = /^[\x21-\x7e]{1,256}$/;

function reader(services: Services) {
  const { ctx } = services;
  const thresholds = thresholdsFromSettings(ctx.env);
  const table = ctx.target.reputationTable;
  return { reader: new DynamoReputationReader(ctx.doc, table, thresholds), thresholds, table };
}

export const reputationPage: Route = async (request, services) => {
  const sender = request.query.get('sender')?.trim() || undefined;
  if (sender !== undefined && !SENDER.test(sender)) throw new InputError('sender: printable characters, at most 256');
  const { reader: read, thresholds, table } = reader(services);
  const now = services.now();
  const [day, week] = await Promise.all([
    read.listSenders('24h', { nowMs: now, ...(sender ? { sender } : {}) }),
    read.listSenders('7d', { nowMs: now, ...(sender ? { sender } : {}) }),
  ]);
  const weekOf = new Map(week.map((s) => [`${s.sender}#${s.provider}`, s]));
  const rows = day.map((d) => row(d, weekOf.get(`${d.sender}#${d.provider}`)));
  const body: Html[] = [
    html`<p class="muted">Table ${table}. Rates are of attempts (delivered + bounced + complained); a sender under ${thresholds.minimumVolume} attempts in the window is ok whatever its rates. Warn at ${percent(thresholds.warn.bounce)} bounces or ${percent(thresholds.warn.complaint)} complaints, breach at ${percent(thresholds.breach.bounce)} or ${percent(thresholds.breach.complaint)}.</p>`,
    rows.length
      ? html`<div class="scroll"><table><thead><tr><th scope="col">Sender</th><th scope="col">Provider</th><th scope="col">24 h state</th><th scope="col">24 h attempts</th><th scope="col">24 h bounce</th><th scope="col">24 h complaint</th><th scope="col">7 d attempts</th><th scope="col">7 d bounce</th><th scope="col">7 d complaint</th></tr></thead><tbody>${rows}</tbody></table></div>`
      : html`<p>No sender counted yet${sender ? html` named ${sender}` : ''}.</p>`,
  ];
  if (sender) body.push(await charts(read, sender, now, thresholds));
  return {
    page: {
      title: sender ? `Reputation of ${sender}` : 'Reputation',
      section: 'reputation',
      target: describeTarget(services),
      body: html`${body}`,
    },
  };
};

function row(d: SenderStatus, w: SenderStatus | undefined): Html {
  return html`<tr><th scope="row"><a href="/reputation${query({ sender: d.sender })}">${d.sender}</a></th><td>${d.provider}</td>
<td><span class="badge ${d.state === 'ok' ? 'active' : 'suppressed'}">${d.state}</span></td>
<td>${d.attempts}</td><td>${percent(d.bounceRate)}</td><td>${percent(d.complaintRate)}</td>
<td>${w?.attempts ?? '—'}</td><td>${w ? percent(w.bounceRate) : '—'}</td><td>${w ? percent(w.complaintRate) : '—'}</td></tr>`;
}

async function charts(
  read: DynamoReputationReader,
  sender: string,
  now: number,
  thresholds: ReputationThresholds,
): Promise<Html> {
  const series = await read.hourlySeries(sender, WINDOW_HOURS['7d'], { nowMs: now });
  // One point per hour, every provider of the sender summed.
  const hours = new Map<number, { hardBounced: number; complained: number; attempts: number }>();
  for (const h of series) {
    const sum = hours.get(h.hourMs) ?? { hardBounced: 0, complained: 0, attempts: 0 };
    sum.hardBounced += h.hardBounced;
    sum.complained += h.complained;
    sum.attempts += attempts(h);
    hours.set(h.hourMs, sum);
  }
  const ordered = [...hours.entries()].sort(([a], [b]) => a - b);
  const points = (pick: (s: { hardBounced: number; complained: number }) => number) =>
    ordered.map(([hourMs, s]) => ({ hourMs, ...(s.attempts > 0 ? { rate: pick(s) / s.attempts } : {}) }));
  return html`<h2>Hourly rates, last 7 days</h2>
${rateChart({ id: 'bounce', title: `Hourly hard-bounce rate of ${sender}`, points: points((s) => s.hardBounced), warn: thresholds.warn.bounce, breach: thresholds.breach.bounce })}
${rateChart({ id: 'complaint', title: `Hourly complaint rate of ${sender}`, points: points((s) => s.complained), warn: thresholds.warn.complaint, breach: thresholds.breach.complaint })}`;
}
