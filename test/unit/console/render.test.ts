/** What the console puts on a page: every value escaped, raw payloads with their secrets redacted. */
import { describe, expect, it } from 'vitest';
import { html } from '../../../lib/console/html.js';
import { REDACTED, redactPayload } from '../../../lib/console/redact.js';
import { hostAllowed } from '../../../lib/console/security.js';

describe('html', () => {
  it('escapes every interpolated value, nested lists too, but not HTML built with it', () => {
    const evil = `"><script>alert('x')</script>&`;
    expect(html`<p title="${evil}">${[evil, html`<b>${evil}</b>`]}</p>`.text).toBe(
      '<p title="&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;">&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;<b>&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;</b></p>',
    );
    expect(html`${undefined}${null}${false}${0}`.text).toBe('0');
  });
});

describe('redactPayload', () => {
  it('replaces signatures and tokens at any depth, and inside JSON held in a string (SNS Message)', () => {
    const raw = JSON.stringify({
      Type: 'Notification',
      Signature: 'c2lnbmF0dXJl',
      SigningCertURL: 'https://sns.example/cert.pem',
      Message: JSON.stringify({ bounce: { bounceType: 'Permanent' }, auth: { api_key: 'k-123' } }),
      'event-data': { recipient: 'a@example.com' },
      signature: { token: 'tok-1', signature: 'abc', timestamp: '1' },
    });
    const shown = redactPayload(raw);
    for (const secret of ['c2lnbmF0dXJl', 'sns.example', 'k-123', 'tok-1', '"abc"'])
      expect(shown).not.toContain(secret);
    expect(shown).toContain(REDACTED);
    expect(shown).toContain('Permanent');
    expect(shown).toContain('a@example.com');
  });

  it('redacts form bodies by field name, and leaves other text as it is', () => {
    expect(redactPayload('recipient=a%40example.com&signature=abc&token=t')).toBe(
      `recipient=a@example.com\nsignature=${REDACTED}\ntoken=${REDACTED}`,
    );
    expect(redactPayload('plain text')).toBe('plain text');
  });

  it('cuts a huge payload, saying how much is left out', () => {
    expect(redactPayload('x'.repeat(70_000))).toMatch(/… \(4464 more characters\)$/);
  });
});

describe('hostAllowed', () => {
  it('allows only this port on either loopback name', () => {
    expect(hostAllowed('127.0.0.1:8123', 8123)).toBe(true);
    expect(hostAllowed('localhost:8123', 8123)).toBe(true);
    for (const host of [
      undefined,
      '127.0.0.1',
      'localhost',
      'localhost:8124',
      'evil.example:8123',
      '[::1]:8123',
      'LOCALHOST:8123',
    ])
      expect(hostAllowed(host, 8123), String(host)).toBe(false);
  });
});
