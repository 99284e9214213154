/**
 * Renders the numbers docs/ses-feed.md quotes (concurrency, receives, visibility, retention, the alarm
 * age, the concurrency budget) from lib/definitions.ts, so the two cannot disagree
 * (test/unit/docs/ses-feed-numbers.test.ts fails when they do, and when the prose quotes one of them
 * outside the table).
 *
 * `npm run docs:ses-feed` rewrites the table; `npm run docs:ses-feed -- --check` exits 1 when it is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ALARMS, CONCURRENCY, CONSUMER, deriveFeedQueue, QUEUE, SES_FEED } from '../lib/definitions.js';
import { LOCAL_QUEUE } from '../lib/local/bootstrap.js';

export const NUMBERS_START = '<!-- ses-feed-numbers:start -->';
export const NUMBERS_END = '<!-- ses-feed-numbers:end -->';
export const SES_FEED_DOC = resolve(import.meta.dirname, '..', 'docs', 'ses-feed.md');

export interface NumberRow {
  what: string;
  value: string;
  why: string;
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits });

export function numberRows(): NumberRow[] {
  const derived = deriveFeedQueue();
  const exhaustHours = (SES_FEED.maxReceiveCount * SES_FEED.visibilityTimeoutSeconds) / 3_600;
  const daysLeft =
    SES_FEED.deadLetterRetentionDays -
    SES_FEED.retentionDays -
    (SES_FEED.maxReceiveCount * (SES_FEED.visibilityTimeoutSeconds + SES_FEED.maxBatchingWindowSeconds)) / 86_400;
  return [
    { what: 'batch size', value: `${SES_FEED.batchSize}`, why: 'the most one `ReceiveMessage` returns' },
    { what: 'batching window', value: `${SES_FEED.maxBatchingWindowSeconds} s`, why: 'a trickle still fills batches' },
    {
      what: 'feed `maxConcurrency` (the event source’s MaximumConcurrency)',
      value: `${SES_FEED.maxConcurrency}`,
      why: 'at most this many batches in flight; a backlog waits on the queue, unreceived',
    },
    { what: 'feed function timeout', value: `${SES_FEED.timeoutSeconds} s`, why: '' },
    {
      what: 'visibility timeout',
      value: `${SES_FEED.visibilityTimeoutSeconds} s`,
      why: '6 × the timeout plus the window, as AWS recommends for SQS event sources',
    },
    {
      what: '`maxReceiveCount`',
      value: `${SES_FEED.maxReceiveCount}`,
      why: `receives × visibility = ${fmt(exhaustHours, 1)} h of failures or throttles ridden out before the redrive policy moves a message (at least ${fmt(SES_FEED.transientToleranceSeconds / 3_600)} h)`,
    },
    {
      what: 'feed retention',
      value: `${SES_FEED.retentionDays} days`,
      why: `a ${fmt(SES_FEED.worstBacklogEvents)}-event backlog drains in ${fmt(derived.worstDrainSeconds / 86_400, 2)} days at the planned ${fmt(derived.serviceRatePerSecond)} envelopes/s (${SES_FEED.batchSize} × ${SES_FEED.maxConcurrency} per ${SES_FEED.plannedBatchSeconds} s)`,
    },
    {
      what: 'SES dead-letter queue retention',
      value: `${SES_FEED.deadLetterRetentionDays} days`,
      why: 'the SQS maximum',
    },
    {
      what: 'days a dead letter has left, at least',
      value: `${fmt(Math.floor(daysLeft * 10) / 10, 1)} days`,
      why: `dead-letter retention − feed retention − receives × (visibility + window); never below ${SES_FEED.minimumDeadLetterDaysLeft}`,
    },
    {
      what: 'oldest-message alarm (`SesFeedBacklogOld`, like `QueueBacklogOld`)',
      value: `${ALARMS.queueAgeSeconds / 60} minutes`,
      why: '',
    },
    {
      what: 'local runtime (`npm start`): visibility timeout',
      value: `${LOCAL_QUEUE.visibilityTimeoutSeconds} s`,
      why: 'a local batch takes milliseconds; what a crash left in flight comes back this soon',
    },
    {
      what: 'events queue: consumer `maxConcurrency`, `maxReceiveCount`',
      value: `${CONSUMER.maxConcurrency}, ${QUEUE.maxReceiveCount}`,
      why: '',
    },
    {
      what: '`concurrencyBudget` (default)',
      value: `${CONCURRENCY.defaultBudget}`,
      why: `every function's concurrency together, of the account's default ${fmt(CONCURRENCY.accountDefault)}: \`cdk synth\` refuses more`,
    },
  ];
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

export function renderNumbers(rows: readonly NumberRow[] = numberRows()): string {
  return [
    '| setting | value | why |',
    '|---|---|---|',
    ...rows.map((r) => `| ${cell(r.what)} | ${cell(r.value)} | ${cell(r.why)} |`),
  ].join('\n');
}

/** `document` with the text between the markers replaced by `table`; throws when a marker is missing. */
export function withNumbers(document: string, table: string): string {
  const start = document.indexOf(NUMBERS_START);
  const end = document.indexOf(NUMBERS_END);
  if (start < 0 || end < start) throw new Error(`${NUMBERS_START} … ${NUMBERS_END} not found`);
  return `${document.slice(0, start + NUMBERS_START.length)}\n${table}\n${document.slice(end)}`;
}

function main(argv: readonly string[]): number {
  if (argv.includes('--help')) {
    console.log(
      'usage: npm run docs:ses-feed [-- --check]\n  rewrites the numbers table in docs/ses-feed.md; --check exits 1 when it is stale',
    );
    return 0;
  }
  const current = readFileSync(SES_FEED_DOC, 'utf8');
  const next = withNumbers(current, renderNumbers());
  if (argv.includes('--check')) {
    if (next === current) return 0;
    console.error('docs/ses-feed.md: the numbers table is stale: run `npm run docs:ses-feed`');
    return 1;
  }
  if (next !== current) writeFileSync(SES_FEED_DOC, next);
  console.log(`docs/ses-feed.md: ${numberRows().length} numbers`);
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  process.exitCode = main(process.argv.slice(2));
