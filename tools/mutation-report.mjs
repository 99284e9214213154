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
  const row = folders.get(folder) ?? { detected: 0, undetected: 0, ignored: 0, staticDetected: 0 };
  const lines = source.split('\n');
  for (const m of mutants) {
    // Static (module-load) mutants are outside the score, as `ignoreStatic` intends. Stryker 9.6.1 still
    // runs the ones it also credits to a test (flagged `static: true` in the report, never `Ignored`),
    // against that one test only, which can almost never kill module-load code; so they are counted here
    // in the static column whatever their status, with how many were detected anyway.
    if (m.status === 'Ignored' || m.static) {
      row.ignored += 1;
      if (DETECTED.has(m.status)) row.staticDetected += 1;
      continue;
    }
    if (DETECTED.has(m.status)) row.detected += 1;
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
    staticDetected: a.staticDetected + r.staticDetected,
  }),
  { detected: 0, undetected: 0, ignored: 0, staticDetected: 0 },
);
// Ignored = static mutants (module-load code; `ignoreStatic` in stryker.config.json): outside the score, shown so they are not hidden.
const out = [
  '| folder (under lambdas/core) | detected | undetected | score | static (of which detected) |',
  '|---|---|---|---|---|',
];
for (const [folder, row] of [...folders].sort(([a], [b]) => a.localeCompare(b)))
  out.push(
    `| ${folder} | ${row.detected} | ${row.undetected} | ${pct(row)} % | ${row.ignored} (${row.staticDetected}) |`,
  );
out.push(
  `| **all folders above** | ${total.detected} | ${total.undetected} | **${pct(total)} %** | ${total.ignored} (${total.staticDetected}) |`,
  '',
  `Worst case, every static mutant not detected counted as a survivor: ${(
    (100 * (total.detected + total.staticDetected)) / (total.detected + total.undetected + total.ignored)
  ).toFixed(1)} %.`,
);
if (process.argv.includes('--survivors')) {
  out.push('', '| file:line | status | mutator | replacement | code |', '|---|---|---|---|---|');
  const cell = (s) => s.replaceAll('|', '\\|').replaceAll('\n', ' ').slice(0, 90);
  for (const s of survivors)
    out.push(`| ${s.file}:${s.line} | ${s.status} | ${s.mutator} | \`${cell(s.replacement)}\` | \`${cell(s.code)}\` |`);
}
console.log(out.join('\n'));
