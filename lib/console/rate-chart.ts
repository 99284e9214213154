/**
 * An hourly rate as an SVG line chart, drawn on the server: the rate per hour (hours with no attempts
 * leave a gap: no rate, not a zero rate), the warn and breach thresholds as dashed lines, and a text
 * alternative (title and desc) for screen readers. Presentation attributes only: the CSP forbids
 * inline styles.
 */
import { type Html, html } from './html.js';

export interface RatePoint {
  hourMs: number;
  /** undefined: no attempts that hour. */
  rate?: number;
}

const W = 720;
const H = 220;
const PAD = { left: 56, right: 96, top: 12, bottom: 28 };

const percent = (x: number) => `${Number((x * 100).toPrecision(3))} %`;

export function rateChart(options: {
  id: string;
  title: string;
  points: RatePoint[];
  warn: number;
  breach: number;
}): Html {
  const { points, warn, breach } = options;
  const rates = points.flatMap((p) => (p.rate === undefined ? [] : [p.rate]));
  const top = Math.max(breach * 1.25, ...rates.map((r) => r * 1.1));
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const x = (i: number) => PAD.left + (points.length <= 1 ? 0 : (i / (points.length - 1)) * plotW);
  const y = (rate: number) => PAD.top + plotH - (rate / top) * plotH;
  const segments: string[][] = [];
  let current: string[] = [];
  points.forEach((p, i) => {
    if (p.rate === undefined) {
      if (current.length) segments.push(current);
      current = [];
    } else current.push(`${x(i).toFixed(1)},${y(p.rate).toFixed(1)}`);
  });
  if (current.length) segments.push(current);
  // Labels at least a line apart: close thresholds would print one over the other.
  const labelY = { warn: y(warn), breach: Math.min(y(breach), y(warn) - 14) };
  const line = (rate: number, colour: string, label: 'warn' | 'breach') =>
    html`<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${y(rate).toFixed(1)}" y2="${y(rate).toFixed(1)}" stroke="${colour}" stroke-width="2" stroke-dasharray="6 4"/>
<text x="${W - PAD.right + 6}" y="${(labelY[label] + 4).toFixed(1)}">${label} ${percent(rate)}</text>`;
  const first = points[0]?.hourMs;
  const last = points.at(-1)?.hourMs;
  const day = (ms: number | undefined) =>
    ms === undefined ? '' : `${new Date(ms).toISOString().slice(0, 13).replace('T', ' ')}h`;
  const peak = rates.length ? Math.max(...rates) : undefined;
  const desc = `${points.length} hours from ${day(first)} to ${day(last)} UTC; ${rates.length} hours with attempts; highest ${peak === undefined ? 'none' : percent(peak)}; warn at ${percent(warn)}, breach at ${percent(breach)}.`;
  return html`<svg viewBox="0 0 ${W} ${H}" width="100%" role="img" aria-labelledby="${options.id}-t ${options.id}-d">
<title id="${options.id}-t">${options.title}</title><desc id="${options.id}-d">${desc}</desc>
<rect x="${PAD.left}" y="${PAD.top}" width="${plotW}" height="${plotH}" fill="#ffffff" stroke="#6b7280"/>
<text x="${PAD.left - 6}" y="${PAD.top + 10}" text-anchor="end">${percent(top)}</text>
<text x="${PAD.left - 6}" y="${PAD.top + plotH}" text-anchor="end">0 %</text>
<text x="${PAD.left}" y="${H - 8}">${day(first)}</text>
<text x="${W - PAD.right}" y="${H - 8}" text-anchor="end">${day(last)}</text>
${line(warn, '#b45309', 'warn')}
${line(breach, '#b91c1c', 'breach')}
${segments.map((s) =>
  s.length === 1
    ? html`<circle cx="${s[0]!.split(',')[0]}" cy="${s[0]!.split(',')[1]}" r="2.5" fill="#1d4ed8"/>`
    : html`<polyline points="${s.join(' ')}" fill="none" stroke="#1d4ed8" stroke-width="2"/>`,
)}
</svg>
<p class="muted">${desc}</p>`;
}
