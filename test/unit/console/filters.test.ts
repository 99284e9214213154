/** The lists' filter: refused values name the field (a 400, nothing read), and the predicate each field adds. */
import { describe, expect, it } from 'vitest';
import { applyEvent, reactivate, type SuppressionRecord } from '../../../lambdas/core/suppression/index.js';
import { parseTopicAliases } from '../../../lambdas/core/topics.js';
import { InputError } from '../../../lib/cli/context.js';
import { matches, readFilter } from '../../../lib/console/filters.js';

const DAY = Date.parse('2026-03-10T12:00:00Z');
const bounce = (email: string, provider: string, at = DAY): SuppressionRecord =>
  applyEvent(undefined, {
    provider,
    eventId: email,
    recipient: email,
    kind: 'hard_bounce',
    occurredAt: at,
    detail: {},
    raw: '',
  }).record;
const params = (text: string) => new URLSearchParams(text);

describe('readFilter', () => {
  it('reads every field, ignoring empty ones', () => {
    expect(
      readFilter(params('status=suppressed&reason=complaint&provider=ses&topic=news&from=2026-01-01&to=2026-02-01&x=')),
    ).toEqual({
      status: 'suppressed',
      reason: 'complaint',
      provider: 'ses',
      topic: 'news',
      from: '2026-01-01',
      to: '2026-02-01',
    });
    expect(readFilter(params('status=&reason='))).toEqual({});
  });

  it.each([
    ['status=gone', /^status: one of suppressed, active/],
    ['reason=soft_bounce', /^reason: one of complaint/],
    ['provider=evil', /^provider: one of /],
    ['from=2026-13-45', /^from: a date as YYYY-MM-DD/],
    ['to=yesterday', /^to: a date/],
    ['from=2026-02-02&to=2026-02-01', /^from is after to$/],
    [`topic=${'t'.repeat(201)}`, /^topic: at most 200/],
  ])('refuses %s', (query, message) => {
    expect(() => readFilter(params(query))).toThrow(InputError);
    expect(() => readFilter(params(query))).toThrow(message);
  });
});

describe('matches', () => {
  const ses = bounce('a@example.com', 'ses');
  const sendgrid = bounce('b@example.com', 'sendgrid');
  const reactivated = reactivate(bounce('c@example.com', 'mailgun'), { actor: 'op', reason: 'r', at: DAY + 1 }).record;

  it('filters by status and reason', () => {
    expect(matches({ status: 'suppressed' }, ses)).toBe(true);
    expect(matches({ status: 'active' }, ses)).toBe(false);
    expect(matches({ status: 'active' }, reactivated)).toBe(true);
    expect(matches({ reason: 'hard_bounce' }, ses)).toBe(true);
    expect(matches({ reason: 'complaint' }, ses)).toBe(false);
  });

  it('filters by provider, counting discounted evidence', () => {
    expect(matches({ provider: 'ses' }, ses)).toBe(true);
    expect(matches({ provider: 'ses' }, sendgrid)).toBe(false);
    expect(matches({ provider: 'mailgun' }, reactivated)).toBe(true);
  });

  it('filters by the day suppressed, both ends included, leaving out records not suppressed', () => {
    expect(matches({ from: '2026-03-10', to: '2026-03-10' }, ses)).toBe(true);
    expect(matches({ from: '2026-03-11' }, ses)).toBe(false);
    expect(matches({ to: '2026-03-09' }, ses)).toBe(false);
    expect(matches({ from: '2026-01-01' }, reactivated)).toBe(false);
  });

  it('filters by topic evidence', () => {
    const topical = applyEvent(undefined, {
      provider: 'sendgrid',
      eventId: 'u1',
      recipient: 't@example.com',
      kind: 'unsubscribe',
      topic: 'sendgrid:group:7',
      occurredAt: DAY,
      detail: {},
      raw: '',
    }).record;
    expect(matches({ topic: 'sendgrid:group:7' }, topical)).toBe(true);
    expect(matches({ topic: 'sendgrid:group:8' }, topical)).toBe(false);
    // Stored before TOPIC_ALIASES named group 7 `newsletter`: the client reads it as newsletter's, and so does the filter.
    const aliases = parseTopicAliases('sendgrid:group:7=newsletter');
    expect(matches({ topic: 'newsletter' }, topical)).toBe(false);
    expect(matches({ topic: 'newsletter' }, topical, aliases)).toBe(true);
    expect(matches({ topic: 'sendgrid:group:7' }, topical, aliases)).toBe(true);
    expect(matches({ topic: 'other' }, topical, aliases)).toBe(false);
    // Stored under the alias: found by either name.
    const aliased = { ...topical, topics: { newsletter: topical.topics['sendgrid:group:7']! } };
    expect(matches({ topic: 'newsletter' }, aliased, aliases)).toBe(true);
    expect(matches({ topic: 'sendgrid:group:7' }, aliased, aliases)).toBe(true);
  });
});
