/**
 * A small line chart as standalone SVG (no script, no outside asset), for the figures the bench writes
 * next to BENCHMARKS.md: series of [x, y] points on shared linear axes, a legend, axis labels.
 */

export interface Series {
  label: string;
  color: string;
  points: ReadonlyArray<readonly [number, number]>;
  dashed?: boolean;
}

export interface PlotOptions {
  title: string;
  xLabel: string;
  yLabel: string;
  width?: number;
  height?: number;
}

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Round step for about `count` ticks over `span`: 1, 2 or 5 times a power of ten. */
export function tickStep(span: number, count = 5): number {
  if (!(span > 0)) return 1;
  const raw = span / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const unit = raw / power;
  return (unit <= 1 ? 1 : unit <= 2 ? 2 : unit <= 5 ? 5 : 10) * power;
}

export function linePlot(series: readonly Series[], options: PlotOptions): string {
  const width = options.width ?? 720;
  const height = options.height ?? 400;
  const margin = { left: 70, right: 20, top: 40, bottom: 50 };
  const all = series.flatMap((s) => s.points);
  const xMax = Math.max(1e-9, ...all.map(([x]) => x));
  const yMax = Math.max(1e-9, ...all.map(([, y]) => y)) * 1.05;
  const plotW = width - margin.left - margin.right;
  const plotH = height - margin.top - margin.bottom;
  const sx = (x: number) => margin.left + (x / xMax) * plotW;
  const sy = (y: number) => margin.top + plotH - (y / yMax) * plotH;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<title>${escapeXml(options.title)}</title>`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="${width / 2}" y="22" text-anchor="middle" font-size="15">${escapeXml(options.title)}</text>`,
  ];
  const xStep = tickStep(xMax);
  for (let x = 0; x <= xMax + 1e-9; x += xStep) {
    out.push(
      `<line x1="${sx(x)}" y1="${margin.top}" x2="${sx(x)}" y2="${margin.top + plotH}" stroke="#e5e5e5"/>`,
      `<text x="${sx(x)}" y="${margin.top + plotH + 16}" text-anchor="middle">${Number(x.toPrecision(6))}</text>`,
    );
  }
  const yStep = tickStep(yMax);
  for (let y = 0; y <= yMax + 1e-9; y += yStep) {
    out.push(
      `<line x1="${margin.left}" y1="${sy(y)}" x2="${margin.left + plotW}" y2="${sy(y)}" stroke="#e5e5e5"/>`,
      `<text x="${margin.left - 6}" y="${sy(y) + 4}" text-anchor="end">${Number(y.toPrecision(6)).toLocaleString('en-US')}</text>`,
    );
  }
  out.push(
    `<rect x="${margin.left}" y="${margin.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#333"/>`,
    `<text x="${margin.left + plotW / 2}" y="${height - 12}" text-anchor="middle">${escapeXml(options.xLabel)}</text>`,
    `<text x="16" y="${margin.top + plotH / 2}" text-anchor="middle" transform="rotate(-90 16 ${margin.top + plotH / 2})">${escapeXml(options.yLabel)}</text>`,
  );
  series.forEach((s, i) => {
    const d = s.points.map(([x, y], j) => `${j === 0 ? 'M' : 'L'}${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(' ');
    out.push(
      `<path d="${d}" fill="none" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`,
      `<line x1="${margin.left + 12}" y1="${margin.top + 14 + i * 18}" x2="${margin.left + 40}" y2="${margin.top + 14 + i * 18}" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`,
      `<text x="${margin.left + 46}" y="${margin.top + 18 + i * 18}">${escapeXml(s.label)}</text>`,
    );
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
