/**
 * docs/ses-feed.md's numbers (concurrency, receives, visibility, retention, alarm age, the budget) are
 * generated from lib/definitions.ts (tools/ses-feed-numbers.ts): the committed table must equal what the
 * generator renders now, and the prose around it must not quote one of those numbers itself, which is
 * how the two drifted before (the docs said 5 receives and 4 days while the template had 20 and 3).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ALARMS, CONCURRENCY, SES_FEED } from '../../../lib/definitions.js';
import {
  NUMBERS_END,
  NUMBERS_START,
  numberRows,
  renderNumbers,
  SES_FEED_DOC,
  withNumbers,
} from '../../../tools/ses-feed-numbers.js';

const doc = () => readFileSync(SES_FEED_DOC, 'utf8');

function split(): { table: string; prose: string } {
  const text = doc();
  const start = text.indexOf(NUMBERS_START);
  const end = text.indexOf(NUMBERS_END);
  expect(start, 'the start marker').toBeGreaterThanOrEqual(0);
  expect(end, 'the end marker, after the start').toBeGreaterThan(start);
  return {
    table: text.slice(start + NUMBERS_START.length, end).trim(),
    prose: text.slice(0, start) + text.slice(end + NUMBERS_END.length),
  };
}

describe('docs/ses-feed.md numbers', () => {
  it('the committed table is what `npm run docs:ses-feed` renders from the definitions', () => {
    expect(split().table).toBe(renderNumbers());
  });

  it('the table quotes the definitions themselves', () => {
    const byWhat = Object.fromEntries(numberRows().map((r) => [r.what, r.value]));
    expect(byWhat['`maxReceiveCount`']).toBe(String(SES_FEED.maxReceiveCount));
    expect(byWhat['feed retention']).toBe(`${SES_FEED.retentionDays} days`);
    expect(byWhat['visibility timeout']).toBe(`${SES_FEED.visibilityTimeoutSeconds} s`);
    expect(byWhat['feed `maxConcurrency` (the event source’s MaximumConcurrency)']).toBe(
      String(SES_FEED.maxConcurrency),
    );
    expect(byWhat['oldest-message alarm (`SesFeedBacklogOld`, like `QueueBacklogOld`)']).toBe(
      `${ALARMS.queueAgeSeconds / 60} minutes`,
    );
    expect(byWhat['`concurrencyBudget` (default)']).toBe(String(CONCURRENCY.defaultBudget));
  });

  it('the prose quotes none of those numbers itself (it points at the table)', () => {
    const { prose } = split();
    const stale = [
      /`maxReceiveCount`\**\s+\d/,
      /`maxConcurrency`\**\s+\d/,
      /\b\d+ receives\b/,
      /\bvisibility timeout \d/,
      /\b\d+ minutes\b/,
      /\b\d+ loops\b/,
      // Days are AWS's (SNS's 23-day retry) or the inbox TTL's (its own section) only.
      /\b(?!23 days|29 days|30[- ]days?)\d+[- ]days?\b/,
    ];
    for (const pattern of stale) expect(prose, String(pattern)).not.toMatch(pattern);
  });

  it('the generator replaces only what is between the markers, and refuses a document without them', () => {
    const text = `intro\n${NUMBERS_START}\nold\n${NUMBERS_END}\nafter`;
    expect(withNumbers(text, 'NEW')).toBe(`intro\n${NUMBERS_START}\nNEW\n${NUMBERS_END}\nafter`);
    expect(() => withNumbers('no markers', 'NEW')).toThrow(/not found/);
  });
});
