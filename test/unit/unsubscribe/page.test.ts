import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  confirmPage,
  escapeHtml,
  problemPage,
  SECURITY_HEADERS,
  STYLE_HASH,
  unsubscribedPage,
} from '../../../lambdas/core/unsubscribe/page.js';
import { maskAddress, pageSettingsFrom, topicLabel } from '../../../lambdas/core/unsubscribe/settings.js';
import type { UnsubscribeClaims } from '../../../lambdas/core/unsubscribe/token.js';

const claims = (over: Partial<UnsubscribeClaims> = {}): UnsubscribeClaims => ({
  email: 'jane@example.com',
  topic: 'newsletter',
  issuedAt: 0,
  keyId: '0000',
  ...over,
});
const page = pageSettingsFrom({
  TOPIC_LABELS: 'newsletter=Weekly newsletter, product=Product <b>news</b>',
  UNSUBSCRIBE_BRAND: 'Acme & Co',
});

describe('the unsubscribe page', () => {
  it('asks about the masked address and the topic label, with one labelled button posting to the same URL', () => {
    const html = confirmPage(claims(), 'TOKEN_abc-1', page);
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('<h1>Unsubscribe j•••@example.com from <em>Weekly newsletter</em>?</h1>');
    expect(html).not.toContain('jane');
    expect(html.match(/<button/g)).toHaveLength(1);
    expect(html).toContain('<form method="post" action="TOKEN_abc-1">');
    expect(html).toContain('<input type="hidden" name="List-Unsubscribe" value="One-Click">');
    expect(html).toContain('<button type="submit">Unsubscribe</button>');
    expect(html).toContain('<title>Unsubscribe j•••@example.com from Weekly newsletter? · Acme &#38; Co</title>');
    expect(html).toContain('name="viewport"');
    expect(html).not.toMatch(/<script|src=|href=|https?:\/\//i);
  });

  it('escapes labels, brand and topic names', () => {
    const html = confirmPage(claims({ topic: 'product' }), 't', page);
    expect(html).toContain('Product &#60;b&#62;news&#60;/b&#62;');
    expect(html).not.toContain('<b>');
    expect(escapeHtml(`<>&"'`)).toBe('&#60;&#62;&#38;&#34;&#39;');
  });

  it('shows an unlabelled topic by its name, and `*` as every list', () => {
    expect(topicLabel('sendgrid:group:42', page)).toBe('sendgrid:group:42');
    expect(topicLabel('*', page)).toBe('all mailing lists');
    expect(confirmPage(claims({ topic: '*' }), 't', page)).toContain('from <em>all mailing lists</em>?');
  });

  it('offers Resubscribe after a topic unsubscribe, and nothing after a global one', () => {
    const topic = unsubscribedPage(claims(), 'tok', page);
    expect(topic).toContain('<input type="hidden" name="action" value="resubscribe">');
    expect(topic).toContain('>Resubscribe</button>');
    expect(unsubscribedPage(claims({ topic: '*' }), 'tok', page)).not.toContain('<form');
  });

  it('masks addresses to their first character and domain', () => {
    expect(maskAddress('jane@example.com')).toBe('j•••@example.com');
    expect(maskAddress('j@example.com')).toBe('j•••@example.com');
    expect(maskAddress('élodie@example.fr')).toBe('é•••@example.fr');
  });

  it('sends a CSP whose style hash is the hash of the inline stylesheet, and the privacy headers', () => {
    const html = problemPage('invalid_token', page);
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
    expect(STYLE_HASH).toBe(`sha256-${createHash('sha256').update(style).digest('base64')}`);
    expect(SECURITY_HEADERS['content-security-policy']).toBe(
      `default-src 'none'; style-src '${STYLE_HASH}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
    );
    expect(SECURITY_HEADERS).toMatchObject({
      'referrer-policy': 'no-referrer',
      'x-robots-tag': 'noindex',
      'cache-control': 'no-store',
    });
  });

  it('has a visible focus style and AA contrast for every text colour pair', () => {
    const html = confirmPage(claims(), 't', page);
    expect(html).toMatch(/button:focus-visible\{outline:3px solid #111827/);
    const pairs: Array<[string, string]> = [
      ['#111827', '#ffffff'],
      ['#374151', '#ffffff'],
      ['#4b5563', '#ffffff'],
      ['#ffffff', '#1d4ed8'],
      ['#1d4ed8', '#ffffff'],
      ['#ffffff', '#1e40af'],
    ];
    for (const [fg, bg] of pairs) {
      expect(html).toContain(fg === '#ffffff' ? bg : fg);
      expect(contrast(fg, bg), `${fg} on ${bg}`).toBeGreaterThanOrEqual(4.5);
    }
  });

  it('refuses malformed TOPIC_LABELS and over-long brands', () => {
    expect(() => pageSettingsFrom({ TOPIC_LABELS: 'newsletter' })).toThrow(/TOPIC_LABELS/);
    expect(() => pageSettingsFrom({ TOPIC_LABELS: '=x' })).toThrow(/TOPIC_LABELS/);
    expect(() => pageSettingsFrom({ UNSUBSCRIBE_BRAND: 'x'.repeat(121) })).toThrow(/BRAND/);
    expect(pageSettingsFrom({})).toEqual({ brand: '', labels: new Map() });
  });
});

function contrast(a: string, b: string): number {
  const lum = (hex: string) => {
    const [r, g, bl] = [1, 3, 5]
      .map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)
      .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * bl!;
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}
