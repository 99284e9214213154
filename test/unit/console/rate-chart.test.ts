/** The reputation chart: threshold lines where the rates put them, a gap (not a zero) for hours without attempts. */
import { describe, expect, it } from 'vitest';
import { rateChart } from '../../../lib/console/rate-chart.js';

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 11, 1);

describe('rateChart', () => {
  it('draws the warn and breach lines, and one line per run of hours with attempts', () => {
    const points = [0.01, 0.02, undefined, undefined, 0.05, 0.06, undefined, 0.03].map((rate, i) => ({
      hourMs: T0 + i * HOUR,
      ...(rate === undefined ? {} : { rate }),
    }));
    const svg = rateChart({ id: 'b', title: 'Bounce <rate>', points, warn: 0.02, breach: 0.04 }).text;
    expect(svg.match(/<polyline /g)).toHaveLength(2);
    expect(svg.match(/<circle /g)).toHaveLength(1);
    expect(svg.match(/stroke-dasharray/g)).toHaveLength(2);
    expect(svg).toContain('>warn 2 %</text>');
    expect(svg).toContain('>breach 4 %</text>');
    expect(svg).toContain('<title id="b-t">Bounce &lt;rate&gt;</title>');
    expect(svg).toContain('8 hours from 2026-12-01 00h to 2026-12-01 07h UTC; 5 hours with attempts; highest 6 %');
    // The breach line sits above the warn line (SVG y grows downwards).
    const ys = [...svg.matchAll(/<line [^>]*y1="([\d.]+)"/g)].map((m) => Number(m[1]));
    expect(ys[1]!).toBeLessThan(ys[0]!);
  });

  it('keeps the threshold labels a line apart when the thresholds are close', () => {
    const svg = rateChart({
      id: 'c',
      title: 'c',
      points: [{ hourMs: T0, rate: 0.5 }],
      warn: 0.0005,
      breach: 0.0008,
    }).text;
    const label = (name: string) => Number(new RegExp(`y="([\\d.]+)">${name} `).exec(svg)![1]);
    expect(label('warn') - label('breach')).toBeGreaterThanOrEqual(14);
  });
});
