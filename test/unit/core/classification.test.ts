import { describe, expect, it } from 'vitest';
import {
  compactDetail,
  INVALID_RECIPIENT_REASON,
  ignoredReasons,
  stringField,
  withRecipient,
} from '../../../lambdas/core/classification.js';

describe('withRecipient', () => {
  it('attaches the normalized recipient and keeps the classification', () => {
    expect(withRecipient(' A@Example.com ', { kind: 'hard_bounce', detail: { status: '5.1.1' } })).toEqual({
      kind: 'hard_bounce',
      detail: { status: '5.1.1' },
      recipient: 'a@example.com',
    });
  });

  it('turns an actionable event with an unusable recipient into an ignored one', () => {
    for (const value of ['not-an-address', '', undefined, 42, '"quoted"@example.com']) {
      expect(withRecipient(value, { kind: 'complaint', detail: { providerEventType: 'x' } })).toEqual({
        kind: 'ignored',
        ignoredReason: INVALID_RECIPIENT_REASON,
        detail: { providerEventType: 'x' },
        recipient: '',
      });
    }
  });

  it('keeps the original reason of an event that was ignored anyway', () => {
    expect(withRecipient(null, { kind: 'ignored', ignoredReason: 'engagement event', detail: {} })).toMatchObject({
      kind: 'ignored',
      ignoredReason: 'engagement event',
      recipient: '',
    });
  });
});

describe('stringField and compactDetail', () => {
  it('keeps only non-empty strings', () => {
    expect([stringField('x'), stringField(''), stringField(5), stringField(null)]).toEqual([
      'x',
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('drops undefined keys', () => {
    expect(Object.keys(compactDetail({ status: undefined, echo: false, bounceType: 'b' }))).toEqual([
      'echo',
      'bounceType',
    ]);
  });
});

describe('ignoredReasons', () => {
  it('counts ignored events per reason, skipping the others, with "unspecified" for a missing reason', () => {
    expect(
      ignoredReasons([
        { kind: 'ignored', ignoredReason: 'engagement event' },
        { kind: 'hard_bounce' },
        { kind: 'ignored' },
        { kind: 'ignored', ignoredReason: 'engagement event' },
        { kind: 'complaint', ignoredReason: 'not counted' },
        { kind: 'ignored', ignoredReason: 'engagement event' },
      ]),
    ).toEqual({ 'engagement event': 3, unspecified: 1 });
  });

  it('is empty when nothing was ignored', () => {
    expect(ignoredReasons([{ kind: 'unsubscribe' }, { kind: 'delivered' }])).toEqual({});
    expect(ignoredReasons([])).toEqual({});
  });
});
