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

  it('quotes the shards, the partition arithmetic, the TTL, the windows and the schedule', () => {
    const shards = REPUTATION_TABLE.counterShards;
    expect(doc).toContain(`one of ${shards} shards`);
    expect(doc).toContain(`puts ${2000 / shards} units a second on each shard`);
    expect(doc).toContain(`plus ${REPUTATION_TABLE.counterTtlDays} days`);
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
