/**
 * `npm run bench`: runs every benchmark section in turn and writes BENCHMARKS.md. Sections that need
 * the local stack start their own and stop it; the bundle section runs last because it loads
 * aws-cdk-lib (for the construct's banner), which would otherwise sit in this process's heap during
 * the timed pipeline runs. The report lists sections in their numbered order.
 */
import { writeFileSync } from 'node:fs';
import { arch, cpus, loadavg, platform, release } from 'node:os';
import { resolve } from 'node:path';
import { currentCapacitySection } from '../capacity/section.js';
import { currentCostSection } from '../cost/report.js';
import { benchBundles } from './bundles.js';
import { benchCapacityCheck } from './capacity-check.js';
import { benchClientFilter } from './client-filter.js';
import { benchConsoleFirstPage } from './console-first-page.js';
import { benchConsumerDrain } from './consumer-drain.js';
import { benchEdgeAdmission } from './edge-admission.js';
import { runCleanups } from './lib/cleanup.js';
import type { SectionResult } from './lib/types.js';
import { benchReconcileScale } from './reconcile-scale.js';
import { renderReport } from './report.js';
import { benchSendgridBatch } from './sendgrid-batch.js';
import { benchSesFeedDrain } from './ses-feed-drain.js';
import { benchSuppressionImport } from './suppression-import.js';
import { benchSyncBacklog } from './sync-backlog.js';
import { benchSyncBatching } from './sync-batching.js';
import { benchSyncThroughput } from './sync-throughput.js';
import { benchUnsubscribeTokens } from './unsubscribe-tokens.js';
import { benchProviderVerification } from './verify-providers.js';
import { benchSnsVerification } from './verify-sns.js';

// The SDK's "Node 20 support ends" notice would print once per client; it says nothing about speed.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const OUTPUT = resolve(import.meta.dirname, '..', 'BENCHMARKS.md');
const log = (line: string) => console.log(line);

const SECTIONS: Array<{ order: number; title: string; run: () => Promise<SectionResult> }> = [
  { order: 1, title: '1. SNS signature verification', run: () => benchSnsVerification() },
  { order: 2, title: '2. Provider verification', run: () => benchProviderVerification() },
  { order: 3, title: '3. Edge admission throughput', run: () => benchEdgeAdmission({ log }) },
  { order: 5, title: '5. Consumer drain rate', run: () => benchConsumerDrain({ log }) },
  { order: 6, title: '6. Big SendGrid batch', run: () => benchSendgridBatch({ log }) },
  { order: 7, title: '7. Client: filterSendable', run: () => benchClientFilter({ log }) },
  { order: 8, title: '8. Suppression import', run: () => benchSuppressionImport({ log }) },
  { order: 9, title: '9. Unsubscribe tokens', run: () => benchUnsubscribeTokens() },
  { order: 10, title: '10. SES feed drain rate', run: () => benchSesFeedDrain({ log }) },
  { order: 11, title: '11. Sync throughput', run: () => benchSyncThroughput() },
  { order: 12, title: '12. Reconcile at scale', run: () => benchReconcileScale({ log }) },
  { order: 13, title: '13. Sync backlog', run: () => benchSyncBacklog() },
  { order: 14, title: '14. Capacity model against a run', run: () => benchCapacityCheck({ log }) },
  { order: 16, title: '16. Console first page', run: () => benchConsoleFirstPage({ log }) },
  { order: 17, title: '17. Sync at the default rates: batched requests', run: () => benchSyncBatching() },
  { order: 4, title: '4. Bundles', run: () => benchBundles({ log }) },
];

const USAGE = `Usage: npm run bench [-- --only <n,n,...>]

Runs every benchmark section (several minutes) and writes BENCHMARKS.md.
  --only <n,...>  run only these sections, into BENCHMARKS-partial.md: ${SECTIONS.map((s) => s.title).join('; ')}
  -h, --help      print this and exit`;
// Help before anything runs: a bench started by accident takes minutes and rewrites a tracked file.
if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log(USAGE);
  process.exit(0);
}

let interrupted = false;
process.once('SIGINT', () => {
  interrupted = true;
  console.error('\ninterrupted: stopping runtimes and removing temp dirs…');
  void runCleanups().finally(() => process.exit(130));
});

/**
 * `npm run bench -- --only 7,9` runs just those sections and writes them to BENCHMARKS-partial.md, so a
 * new section can be measured without rerunning (and overwriting) the full report.
 */
const onlyArg = process.argv.indexOf('--only');
const only = onlyArg >= 0 ? new Set((process.argv[onlyArg + 1] ?? '').split(',').map(Number)) : undefined;
const selected = only ? SECTIONS.filter((s) => only.has(s.order)) : SECTIONS;
const target = only ? OUTPUT.replace(/\.md$/, '-partial.md') : OUTPUT;

async function main(): Promise<number> {
  const startedAt = new Date();
  const started = performance.now();
  const loadAverageStart = loadavg();
  const results: Array<{ order: number; result: SectionResult }> = [];
  const failures: Array<{ title: string; error: string }> = [];

  for (const section of selected) {
    if (interrupted) break;
    log(`▶ ${section.title}`);
    try {
      const result = await section.run();
      results.push({ order: section.order, result });
      for (const v of result.verdicts) log(`  ${v.meets ? '✓' : '✗'} ${v.subject}: ${v.measured} (target ${v.target})`);
      log(`  done in ${(result.wallMs / 1000).toFixed(1)} s`);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      failures.push({ title: section.title, error: message });
      console.error(`  ✗ ${section.title} failed: ${message}`);
    }
  }
  await runCleanups();

  const sections = results.sort((a, b) => a.order - b.order).map((r) => r.result);
  const report = renderReport(
    {
      startedAt,
      wallMs: performance.now() - started,
      node: process.version,
      cpu: cpus()[0]?.model.trim() ?? 'unknown',
      cores: cpus().length,
      platform: `${platform()} ${arch()} ${release()}`,
      loadAverageStart,
      loadAverageEnd: loadavg(),
      failures,
    },
    sections,
  );
  // `npm run cost` and `npm run capacity -- --write` own their own sections of the file: carry them over.
  const carried = only ? [] : [currentCostSection(OUTPUT), currentCapacitySection(OUTPUT)].filter(Boolean);
  writeFileSync(target, carried.length > 0 ? `${report.trimEnd()}\n\n${carried.join('\n\n')}\n` : report);
  const verdicts = sections.flatMap((s) => s.verdicts);
  log(
    `\nWrote ${target}: ${verdicts.filter((v) => v.meets).length}/${verdicts.length} targets met, ${failures.length} section(s) failed, ${((performance.now() - started) / 1000).toFixed(0)} s.`,
  );
  return failures.length > 0 ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
    // Everything is closed by now; this only guards against a stray keep-alive handle holding the process open.
    setTimeout(() => process.exit(code), 2000).unref();
  },
  async (error: unknown) => {
    console.error(error);
    await runCleanups();
    process.exit(1);
  },
);
