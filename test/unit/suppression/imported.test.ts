/** Imported entries: evidence of the source's kind with an actor, idempotent, and never a way out of suppression. */
import { describe, expect, it } from 'vitest';
import { applyEvent, type ImportedEntry, importEntry, reactivate } from '../../../lambdas/core/suppression/index.js';
import { DAY, EMAIL, ev, T0 } from './support.js';

const entry = (over: Partial<ImportedEntry> = {}): ImportedEntry => ({
  kind: 'hard_bounce',
  occurredAt: T0,
  actor: 'import:bounces.csv',
  entryId: 'e1',
  source: 'mailgun-bounces',
  note: '550 No such mailbox',
  ...over,
});

describe('importEntry', () => {
  it('suppresses with evidence of the matching kind, dated by the entry, with its actor', () => {
    const result = importEntry(undefined, ' Someone@Example.com ', entry());
    expect(result.effect).toBe('suppressed');
    expect(result.record).toMatchObject({
      email: EMAIL,
      status: 'suppressed',
      reason: 'hard_bounce',
      suppressedAt: T0,
      firstEventAt: T0,
    });
    expect(result.record.evidence).toEqual({
      'hard_bounce:import#e1': {
        kind: 'hard_bounce',
        occurredAt: T0,
        provider: 'import',
        actor: 'import:bounces.csv',
        providerEventType: 'mailgun-bounces',
        note: '550 No such mailbox',
      },
    });
  });

  it('is idempotent: the same entry again changes nothing', () => {
    const once = importEntry(undefined, EMAIL, entry()).record;
    const twice = importEntry(once, EMAIL, entry());
    expect(twice.changed).toBe(false);
    expect(twice.effect).toBe('no_change');
    expect(twice.record).toEqual(once);
  });

  it('never lifts: an unsubscribe entry only adds a reason to a complaint', () => {
    const complained = applyEvent(undefined, ev('complaint', T0), undefined).record;
    const result = importEntry(complained, EMAIL, entry({ kind: 'unsubscribe', occurredAt: T0 + DAY }));
    expect(result.record.status).toBe('suppressed');
    expect(result.record.reasons).toEqual(['complaint', 'unsubscribe']);
  });

  it('an entry dated at or before a reactivation does not count; one dated after does', () => {
    const suppressed = importEntry(undefined, EMAIL, entry()).record;
    const active = reactivate(suppressed, { actor: 'ops', reason: 'confirmed', at: T0 + DAY }).record;
    expect(active.status).toBe('active');
    const old = importEntry(active, EMAIL, entry({ entryId: 'e2', occurredAt: T0 + DAY }));
    expect(old.effect).toBe('ignored_before_reactivation');
    expect(old.record.status).toBe('active');
    expect(importEntry(active, EMAIL, entry({ entryId: 'e3', occurredAt: T0 + 2 * DAY })).record.status).toBe(
      'suppressed',
    );
  });

  it('a soft bounce entry spends the budget instead of suppressing', () => {
    const result = importEntry(undefined, EMAIL, entry({ kind: 'soft_bounce' }));
    expect(result.record.status).toBe('active');
    expect(Object.keys(result.record.softBounces)).toEqual(['import#e1']);
  });

  it('refuses an address that is not one, and a record for another address', () => {
    expect(() => importEntry(undefined, 'garbage', entry())).toThrow('recipient is not an email address');
    const other = importEntry(undefined, 'other@example.com', entry()).record;
    expect(() => importEntry(other, EMAIL, entry())).toThrow('address does not match');
  });
});
