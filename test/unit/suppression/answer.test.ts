/**
 * refusalReason: the answer the client package and the in-repo adapter both give sending code.
 * Each row pins the exact reason returned, so a change to the rules shows up as a changed answer.
 */
import { describe, expect, it } from 'vitest';
import {
  ANSWER_ATTRIBUTES,
  type AnswerItem,
  refusalReason,
  type SendQuestion,
} from '../../../lambdas/core/suppression/answer.js';
import { upgradeSuppressionRecord } from '../../../lambdas/core/suppression/schema.js';

const TRANSACTIONAL: SendQuestion = { transactional: true };
const NEWS: SendQuestion = { topic: 'news' };
const unsubscribedFrom = (topic: string) => ({ [topic]: { status: 'unsubscribed', changedAt: 1 } });

describe('refusalReason: no category (marketing mail)', () => {
  const cases: Array<[string, AnswerItem | undefined, string | undefined]> = [
    ['no record', undefined, undefined],
    ['an empty record', {}, undefined],
    ['an active record', { status: 'active', reason: 'hard_bounce', reasons: ['hard_bounce'] }, undefined],
    [
      'suppressed: the stored reason',
      { status: 'suppressed', reason: 'hard_bounce', reasons: ['complaint', 'hard_bounce'] },
      'hard_bounce',
    ],
    [
      'suppressed, no reason: the first listed reason',
      { status: 'suppressed', reasons: ['complaint', 'unsubscribe'] },
      'complaint',
    ],
    [
      'suppressed, reasons that are not strings are skipped',
      { status: 'suppressed', reasons: [7, null, 'soft_bounce_limit'] },
      'soft_bounce_limit',
    ],
    [
      'suppressed, a reason that is not a string falls back to the list',
      { status: 'suppressed', reason: 5, reasons: ['complaint'] },
      'complaint',
    ],
    ['suppressed, reasons not a list and no reason: manual', { status: 'suppressed', reasons: 'complaint' }, 'manual'],
    ['suppressed with nothing readable: manual (fail closed)', { status: 'suppressed' }, 'manual'],
    [
      'suppressed by an unsubscribe: blocks marketing',
      { status: 'suppressed', reason: 'unsubscribe', reasons: ['unsubscribe'] },
      'unsubscribe',
    ],
    [
      'a status other than suppressed does not block',
      { status: 'Suppressed', reason: 'complaint', reasons: ['complaint'] },
      undefined,
    ],
  ];
  it.each(cases)('%s', (_name, item, expected) => {
    expect(refusalReason(item)).toBe(expected);
    expect(refusalReason(item, {})).toBe(expected);
    expect(refusalReason(item, { transactional: false })).toBe(expected);
  });
});

describe('refusalReason: transactional mail', () => {
  const cases: Array<[string, AnswerItem | undefined, string | undefined]> = [
    ['no record', undefined, undefined],
    [
      'transactionalStatus suppressed: the first non-unsubscribe reason',
      {
        status: 'suppressed',
        transactionalStatus: 'suppressed',
        reason: 'unsubscribe',
        reasons: ['unsubscribe', 'complaint', 'hard_bounce'],
      },
      'complaint',
    ],
    [
      'transactionalStatus suppressed, only an unsubscribe listed: manual',
      { status: 'suppressed', transactionalStatus: 'suppressed', reason: 'unsubscribe', reasons: ['unsubscribe'] },
      'manual',
    ],
    [
      'transactionalStatus suppressed, no list: the stored reason',
      { status: 'active', transactionalStatus: 'suppressed', reason: 'hard_bounce' },
      'hard_bounce',
    ],
    [
      'transactionalStatus active: an unsubscribe never blocks a password reset',
      { status: 'suppressed', transactionalStatus: 'active', reason: 'unsubscribe', reasons: ['unsubscribe'] },
      undefined,
    ],
    [
      'transactionalStatus active wins over a listed hard bounce (the record says so)',
      { status: 'suppressed', transactionalStatus: 'active', reasons: ['hard_bounce'] },
      undefined,
    ],
    [
      'no transactionalStatus: not blocked (the reader derives it for an old item, schema.test.ts)',
      { status: 'suppressed', reason: 'hard_bounce', reasons: ['hard_bounce'] },
      undefined,
    ],
    [
      'transactionalStatus other than suppressed does not block',
      { status: 'suppressed', transactionalStatus: 'Suppressed', reasons: ['complaint'] },
      undefined,
    ],
  ];
  it.each(cases)('%s', (_name, item, expected) => {
    expect(refusalReason(item, TRANSACTIONAL)).toBe(expected);
  });
});

describe('refusalReason: a topic', () => {
  const cases: Array<[string, AnswerItem, SendQuestion, string | undefined]> = [
    ['unsubscribed from the topic', { status: 'active', topics: unsubscribedFrom('news') }, NEWS, 'topic_unsubscribed'],
    ['unsubscribed from another topic', { status: 'active', topics: unsubscribedFrom('offers') }, NEWS, undefined],
    ['subscribed again', { status: 'active', topics: { news: { status: 'subscribed' } } }, NEWS, undefined],
    [
      'a global suppression answers first',
      { status: 'suppressed', reason: 'complaint', reasons: ['complaint'], topics: unsubscribedFrom('news') },
      NEWS,
      'complaint',
    ],
    [
      'no topic asked: the opt-out does not block',
      { status: 'active', topics: unsubscribedFrom('news') },
      {},
      undefined,
    ],
    [
      'transactional mail on an opted-out topic',
      {
        status: 'suppressed',
        transactionalStatus: 'active',
        reasons: ['unsubscribe'],
        topics: unsubscribedFrom('news'),
      },
      { transactional: true, topic: 'news' },
      'topic_unsubscribed',
    ],
    [
      'transactional mail, globally blocked',
      {
        status: 'suppressed',
        transactionalStatus: 'suppressed',
        reasons: ['hard_bounce'],
        topics: unsubscribedFrom('news'),
      },
      { transactional: true, topic: 'news' },
      'hard_bounce',
    ],
    ['topics is null', { status: 'active', topics: null }, NEWS, undefined],
    ['topics is a string', { status: 'active', topics: 'news' }, NEWS, undefined],
    ["the topic's state is null", { status: 'active', topics: { news: null } }, NEWS, undefined],
    ["the topic's state is a bare string", { status: 'active', topics: { news: 'unsubscribed' } }, NEWS, undefined],
    ['no topics at all (an item written before topics)', { status: 'active' }, NEWS, undefined],
    [
      'a function as the topic state is not a state',
      { status: 'active', topics: { news: Object.assign(() => undefined, { status: 'unsubscribed' }) } },
      NEWS,
      undefined,
    ],
    [
      'no topic asked: a topic literally named "undefined" is not consulted',
      { status: 'active', topics: unsubscribedFrom('undefined') },
      {},
      undefined,
    ],
    [
      'an inherited topic does not count',
      { status: 'active', topics: Object.create(unsubscribedFrom('news')) as object },
      NEWS,
      undefined,
    ],
  ];
  it.each(cases)('%s', (_name, item, question, expected) => {
    expect(refusalReason(item, question)).toBe(expected);
  });
});

describe('ANSWER_ATTRIBUTES', () => {
  it('is exactly what refusalReason reads, besides the one topic the caller projects, plus the schema version the reader needs', () => {
    expect([...ANSWER_ATTRIBUTES]).toEqual([
      'email',
      'status',
      'transactionalStatus',
      'reason',
      'reasons',
      'schemaVersion',
    ]);
  });
});

/** A version-1 item (written before topics) goes through the reader first, as every caller does. */
describe('refusalReason on items written before topics, through upgradeSuppressionRecord', () => {
  const cases: Array<[string, Record<string, unknown>, string | undefined]> = [
    [
      'unsubscribe only: not blocked',
      { status: 'suppressed', reason: 'unsubscribe', reasons: ['unsubscribe'] },
      undefined,
    ],
    [
      'a blocking reason after the unsubscribe',
      { status: 'suppressed', reason: 'unsubscribe', reasons: ['unsubscribe', 'hard_bounce'] },
      'hard_bounce',
    ],
    ['active but listing a complaint: blocked by the list', { status: 'active', reasons: ['complaint'] }, 'complaint'],
    ['suppressed with no readable reason: manual (fail closed)', { status: 'suppressed' }, 'manual'],
    [
      'suppressed, empty list, stored reason complaint',
      { status: 'suppressed', reason: 'complaint', reasons: [] },
      'complaint',
    ],
    [
      'suppressed, empty list, stored reason unsubscribe: manual',
      { status: 'suppressed', reason: 'unsubscribe', reasons: [] },
      'manual',
    ],
    ['active, empty list: not blocked', { status: 'active', reasons: [] }, undefined],
  ];
  it.each(cases)('%s', (_name, item, expected) => {
    expect(refusalReason(upgradeSuppressionRecord(item), TRANSACTIONAL)).toBe(expected);
  });
});

/** A topic asked for under its alias also reads the canonical name stored before the alias was set. */
describe('refusalReason: topic states under an alias that are not well formed', () => {
  const aliases = new Map([['sendgrid:group:7', 'news']]);
  const stored = (aliasState: Record<string, unknown>) => ({
    status: 'active',
    topics: { news: aliasState, 'sendgrid:group:7': { status: 'unsubscribed', changedAt: 5 } },
  });

  it('a state without a string status is no state: a later one does not hide the dated opt-out', () => {
    expect(refusalReason(stored({ changedAt: 9 }), NEWS, aliases)).toBe('topic_unsubscribed');
    expect(refusalReason(stored({ status: 7, changedAt: 9 }), NEWS, aliases)).toBe('topic_unsubscribed');
  });

  it('a state without a numeric time loses to any dated one', () => {
    expect(refusalReason(stored({ status: 'subscribed' }), NEWS, aliases)).toBe('topic_unsubscribed');
    expect(refusalReason(stored({ status: 'subscribed', changedAt: '9' }), NEWS, aliases)).toBe('topic_unsubscribed');
    // The same state dated after the opt-out wins: the time is what decides.
    expect(refusalReason(stored({ status: 'subscribed', changedAt: 9 }), NEWS, aliases)).toBeUndefined();
  });
});
