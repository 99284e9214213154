/**
 * docs/reputation.md quotes numbers: each is checked against the definitions it describes, so a changed
 * default fails here instead of leaving the doc wrong.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_INBOX_TTL_DAYS, REPUTATION_TABLE } from '../../../lambdas/adapters/tables.js';
import { REPUTATION_VARIABLES, DEFAULT_THRESHOLDS as T, WINDOW_HOURS } from '../../../lambdas/core/reputation/index.js';
import { REPUTATION } from '../../../lib/definitions.js';

const doc = readFileSync(new URL('../../../docs/reputation.md', import.meta.url), 'utf8');
const pct = (x: number) => `${Number((x * 100).toPrecision(6))} %`;

describe('docs/reputation.md', () => {
  it('quotes the default thresholds and the minimum volume', () => {
    expect(doc).toContain(`| \`warn\` | ${pct(T.warn.bounce)} | ${pct(T.warn.complaint)} |`);
    expect(doc).toContain(`| \`breach\` | ${pct(T.breach.bounce)} | ${pct(T.breach.complaint)} |`);
    expect(doc).toContain(`\`${REPUTATION_VARIABLES.minimumVolume}\`, ${T.minimumVolume} attempts`);
    for (const variable of Object.values(REPUTATION_VARIABLES)) expect(doc).toContain(`\`${variable}\``);
  });

  it("quotes the stream mapping's batch, window, retries, maximum age, tumbling window and concurrency", () => {
    const c = REPUTATION.counting;
    const n = (x: number) => x.toLocaleString('en-US');
    expect(doc).toContain(`up to ${n(c.batchSize)} records, gathered for up to ${c.maxBatchingWindowSeconds} seconds`);
    expect(doc).toContain(`about 2,000 / ${n(c.batchSize)} full batches a second`);
    expect(doc).toContain(`one\nwrite per stream shard every ${c.maxBatchingWindowSeconds} seconds`);
    expect(doc).toContain(`after its retries (${c.retryAttempts}, bisected each time)`);
    expect(doc).toContain(`past its maximum age\n(${c.maxRecordAgeSeconds / 3600} hours`);
    expect(doc).toContain(`tumbling window, so it has one (${c.tumblingWindowSeconds} s)`);
    expect(doc).toContain(`reserved concurrency ${c.reservedConcurrency}; \`npm run capacity\``);
  });

  it('quotes the partition arithmetic, the TTL, the windows and the schedule', () => {
    expect(doc).toContain(`plus\n  ${REPUTATION_TABLE.counterTtlDays} days`);
    expect(doc).toContain(`at most ${WINDOW_HOURS['7d']}`);
    expect(doc).toContain(`the 23, or ${WINDOW_HOURS['7d'] - 1}, before it`);
    expect(doc).toContain(
      `registry: one row per provider and sender (pk \`senders#<hash mod ${REPUTATION_TABLE.registryShards}>\``,
    );
    expect(doc).toContain(`runs every ${REPUTATION.evaluateEveryMinutes} minutes`);
    expect(doc).toContain(`reserved concurrency ${REPUTATION.reservedConcurrency}`);
    expect(doc).toContain(`${DEFAULT_INBOX_TTL_DAYS} days by default`);
    expect(doc).toContain(`(${pct(T.breach.complaint)} at the breach threshold)`);
  });
});
