// `npm run mutation:report`: per-folder mutation scores and the surviving mutants, from the JSON report
// that `npm run mutation` writes (reports/mutation/*.json, one per `--report` part; later files win for
// a source file that is in several), as Markdown for QUALITY.md. `--survivors` lists the undetected.
// Score = (killed + timed out) / (killed + timed out + survived + no coverage), Stryker's own definition.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';

const given = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const paths = given.length
  ? given
  : readdirSync('reports/mutation')
      .filter((f) => f.endsWith('.json') && !f.endsWith('-incremental.json'))
      .map((f) => `reports/mutation/${f}`);
const report = { files: Object.assign({}, ...paths.map((p) => JSON.parse(readFileSync(p, 'utf8')).files)) };
const DETECTED = new Set(['Killed', 'Timeout']);
const UNDETECTED = new Set(['Survived', 'NoCoverage']);

const folders = new Map();
const survivors = [];
for (const [file, { mutants, source }] of Object.entries(report.files)) {
  const rel = relative('lambdas/core', file.replace(/^.*?(lambdas\/core\/)/, '$1'));
  const folder = dirname(rel) === '.' ? '(core root)' : dirname(rel);
  const row = folders.get(folder) ?? { detected: 0, undetected: 0, ignored: 0 };
  const lines = source.split('\n');
  for (const m of mutants) {
    if (DETECTED.has(m.status)) row.detected += 1;
    if (m.status === 'Ignored') row.ignored += 1;
    if (UNDETECTED.has(m.status)) {
      row.undetected += 1;
      const line = m.location.start.line;
      survivors.push({
        file: rel,
        line,
        status: m.status,
        mutator: m.mutatorName,
        replacement: m.replacement ?? '',
        code: lines[line - 1]?.trim() ?? '',
      });
    }
  }
  folders.set(folder, row);
}

const pct = ({ detected, undetected }) =>
  detected + undetected ? ((100 * detected) / (detected + undetected)).toFixed(1) : 'n/a';
const total = [...folders.values()].reduce(
  (a, r) => ({
    detected: a.detected + r.detected,
    undetected: a.undetected + r.undetected,
    ignored: a.ignored + r.ignored,
  }),
  { detected: 0, undetected: 0, ignored: 0 },
);
// Ignored = static mutants (module-load code; `ignoreStatic` in stryker.config.json): outside the score, shown so they are not hidden.
const out = [
  '| folder (under lambdas/core) | detected | undetected | score | ignored (static) |',
  '|---|---|---|---|---|',
];
for (const [folder, row] of [...folders].sort(([a], [b]) => a.localeCompare(b)))
  out.push(`| ${folder} | ${row.detected} | ${row.undetected} | ${pct(row)} % | ${row.ignored} |`);
out.push(
  `| **all folders above** | ${total.detected} | ${total.undetected} | **${pct(total)} %** | ${total.ignored} |`,
);
if (process.argv.includes('--survivors')) {
  out.push('', '| file:line | status | mutator | replacement | code |', '|---|---|---|---|---|');
  const cell = (s) => s.replaceAll('|', '\\|').replaceAll('\n', ' ').slice(0, 90);
  for (const s of survivors)
    out.push(`| ${s.file}:${s.line} | ${s.status} | ${s.mutator} | \`${cell(s.replacement)}\` | \`${cell(s.code)}\` |`);
}
console.log(out.join('\n'));
