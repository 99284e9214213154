/** The capacity section of BENCHMARKS.md, between two markers, which `npm run bench` carries over. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

export const CAPACITY_BEGIN = '<!-- capacity:begin (written by `npm run capacity -- --write`) -->';
export const CAPACITY_END = '<!-- capacity:end -->';

export function writeCapacitySection(file: string, markdown: string): void {
  const block = `${CAPACITY_BEGIN}\n${markdown.trimEnd()}\n${CAPACITY_END}`;
  const current = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const start = current.indexOf(CAPACITY_BEGIN);
  const end = current.indexOf(CAPACITY_END);
  const next =
    start >= 0 && end > start
      ? `${current.slice(0, start)}${block}${current.slice(end + CAPACITY_END.length)}`
      : `${current.trimEnd()}\n\n${block}\n`;
  writeFileSync(file, next);
}

export function currentCapacitySection(file: string): string | undefined {
  if (!existsSync(file)) return undefined;
  const current = readFileSync(file, 'utf8');
  const start = current.indexOf(CAPACITY_BEGIN);
  const end = current.indexOf(CAPACITY_END);
  return start >= 0 && end > start ? current.slice(start, end + CAPACITY_END.length) : undefined;
}
