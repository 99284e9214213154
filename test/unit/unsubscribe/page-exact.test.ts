/**
 * Every unsubscribe page, byte for byte (the stylesheet aside, which its CSP hash pins), the short
 * texts a mailbox provider gets, and the exact reading of TOPIC_LABELS and UNSUBSCRIBE_BRAND.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  confirmPage,
  type ProblemKind,
  problemPage,
  problemText,
  resubscribedPage,
  STYLE_HASH,
  unsubscribedPage,
} from '../../../lambdas/core/unsubscribe/page.js';
import { maskAddress, pageSettingsFrom } from '../../../lambdas/core/unsubscribe/settings.js';
import type { UnsubscribeClaims } from '../../../lambdas/core/unsubscribe/token.js';

const claims = (topic: string): UnsubscribeClaims => ({ email: 'jane@example.com', topic, issuedAt: 0, keyId: '0000' });
const branded = pageSettingsFrom({ TOPIC_LABELS: 'newsletter=Weekly newsletter', UNSUBSCRIBE_BRAND: 'Acme & Co' });
const plain = pageSettingsFrom({});

function styleOf(html: string): string {
  const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
  expect(`sha256-${createHash('sha256').update(style).digest('base64')}`).toBe(STYLE_HASH);
  return style;
}

/** The frame every page shares, around its own lines. */
function frame(title: string, style: string, lines: string[]): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">',
    '<meta name="robots" content="noindex">',
    `<title>${title}</title><style>${style}</style></head>`,
    '<body><main>',
    ...lines,
    '</main></body></html>',
  ].join('\n');
}

describe('the pages, exactly', () => {
  it('confirm, for a labelled topic under a brand', () => {
    const html = confirmPage(claims('newsletter'), 'TOK-1', branded);
    expect(html).toBe(
      frame('Unsubscribe j•••@example.com from Weekly newsletter? · Acme &#38; Co', styleOf(html), [
        '<p class="brand">Acme &#38; Co</p>',
        '<h1>Unsubscribe j•••@example.com from <em>Weekly newsletter</em>?</h1>',
        '<p>You will stop receiving Weekly newsletter at this address. Other mail is not affected.</p>',
        '<form method="post" action="TOK-1"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>',
      ]),
    );
  });

  it('confirm, for every list, without a brand', () => {
    const html = confirmPage(claims('*'), 'TOK-2', plain);
    expect(html).toBe(
      frame('Unsubscribe j•••@example.com from all mailing lists?', styleOf(html), [
        '',
        '<h1>Unsubscribe j•••@example.com from <em>all mailing lists</em>?</h1>',
        '<p>You will stop receiving our mailing lists at this address.</p>',
        '<form method="post" action="TOK-2"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>',
      ]),
    );
  });

  it('unsubscribed from a topic: the way back is a secondary Resubscribe button', () => {
    const html = unsubscribedPage(claims('newsletter'), 'TOK-3', branded);
    expect(html).toBe(
      frame('You are unsubscribed · Acme &#38; Co', styleOf(html), [
        '<p class="brand">Acme &#38; Co</p>',
        '<h1>You are unsubscribed</h1>',
        '<p>j•••@example.com will no longer receive Weekly newsletter.</p>',
        '<p class="small">Unsubscribed by mistake?</p><form method="post" action="TOK-3"><input type="hidden" name="action" value="resubscribe"><button type="submit" class="secondary">Resubscribe</button></form>',
      ]),
    );
  });

  it('unsubscribed from every list: no form', () => {
    const html = unsubscribedPage(claims('*'), 'TOK-4', plain);
    expect(html).toBe(
      frame('You are unsubscribed', styleOf(html), [
        '',
        '<h1>You are unsubscribed</h1>',
        '<p>j•••@example.com will no longer receive our mailing lists.</p>',
        '',
      ]),
    );
  });

  it('subscribed again, an unlabelled topic shown by its name', () => {
    const html = resubscribedPage(claims('product'), plain);
    expect(html).toBe(
      frame('You are subscribed again', styleOf(html), [
        '',
        '<h1>You are subscribed again</h1>',
        '<p>j•••@example.com will receive product again.</p>',
        '',
      ]),
    );
  });

  const problems: Record<ProblemKind, [string, string]> = {
    invalid_token: [
      'This unsubscribe link does not work',
      'It may have been copied incompletely. Use the unsubscribe link in a recent message, or reply to that message and ask to be removed.',
    ],
    expired_token: [
      'This unsubscribe link has expired',
      'Use the unsubscribe link in a more recent message, or reply to one of our messages and ask to be removed.',
    ],
    bad_request: ['This request was not understood', 'Open the unsubscribe link again and use the button on the page.'],
    not_configured: ['Unsubscribe links are not set up here', 'Reply to one of our messages and ask to be removed.'],
    unavailable: ['Something went wrong on our side', 'Nothing was changed. Please try again in a minute.'],
  };

  for (const [kind, [heading, text]] of Object.entries(problems) as Array<[ProblemKind, [string, string]]>) {
    it(`problem ${kind}: the page and the one-line text`, () => {
      const html = problemPage(kind, branded);
      expect(html).toBe(
        frame(`${heading} · Acme &#38; Co`, styleOf(html), [
          '<p class="brand">Acme &#38; Co</p>',
          `<h1>${heading}</h1>`,
          `<p>${text}</p>`,
          '',
        ]),
      );
      expect(problemText(kind)).toBe(`${heading}. ${text}\n`);
    });
  }
});

describe('page settings, exactly', () => {
  it('trims topics, labels and the brand, and skips blank entries', () => {
    const settings = pageSettingsFrom({
      TOPIC_LABELS: ' newsletter = Weekly newsletter , ,product=Product news,',
      UNSUBSCRIBE_BRAND: '  Acme  ',
    });
    expect(settings).toEqual({
      brand: 'Acme',
      labels: new Map([
        ['newsletter', 'Weekly newsletter'],
        ['product', 'Product news'],
      ]),
    });
  });

  it('accepts labels and brands of 120 characters, refuses 121, and refuses a pair without a topic or a label', () => {
    expect(pageSettingsFrom({ TOPIC_LABELS: `n=${'l'.repeat(120)}`, UNSUBSCRIBE_BRAND: 'b'.repeat(120) })).toEqual({
      brand: 'b'.repeat(120),
      labels: new Map([['n', 'l'.repeat(120)]]),
    });
    const pairs = 'TOPIC_LABELS must be comma-separated `topic=Label` pairs (labels up to 120 characters)';
    for (const value of [`n=${'l'.repeat(121)}`, 'newsletter=', 'newsletter= ', '=Label', ' =Label', 'newsletter']) {
      expect(() => pageSettingsFrom({ TOPIC_LABELS: value }), value).toThrow(new Error(pairs));
    }
    expect(() => pageSettingsFrom({ UNSUBSCRIBE_BRAND: 'b'.repeat(121) })).toThrow(
      new Error('UNSUBSCRIBE_BRAND is longer than 120 characters'),
    );
  });

  it('masks an address with an empty local part to its domain alone', () => {
    expect(maskAddress('@example.com')).toBe('•••@example.com');
  });
});
