/**
 * The edges of the one-click body: the size limit to the byte, each accepted content type, a
 * conflicting action, and the multipart reading (which parts count, which are skipped, which refuse).
 */
import { describe, expect, it } from 'vitest';
import { MAX_FORM_BYTES, parseUnsubscribeForm } from '../../../lambdas/core/unsubscribe/form.js';

const FORM = 'application/x-www-form-urlencoded';
const B = 'xyzBOUNDARY';
const TYPE = `multipart/form-data; boundary=${B}`;
const ONE_CLICK_PART = `\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n`;

/** Parts given as raw text between delimiters, then the close delimiter. */
const multipart = (...parts: string[]) => Buffer.from(`${parts.map((p) => `--${B}${p}`).join('')}--${B}--\r\n`);

describe('form-encoded bodies', () => {
  it('accepts a body of exactly MAX_FORM_BYTES, and refuses one byte more', () => {
    const head = 'List-Unsubscribe=One-Click&pad=';
    const exact = Buffer.from(head + 'a'.repeat(MAX_FORM_BYTES - head.length));
    expect(exact).toHaveLength(16 * 1024);
    expect(parseUnsubscribeForm(exact, FORM)).toBe('unsubscribe');
    expect(parseUnsubscribeForm(Buffer.concat([exact, Buffer.from('a')]), FORM)).toBeUndefined();
  });

  it('reads text/plain and a content type with blanks around it, in any case', () => {
    expect(parseUnsubscribeForm(Buffer.from('List-Unsubscribe=One-Click'), 'text/plain')).toBe('unsubscribe');
    expect(
      parseUnsubscribeForm(Buffer.from('List-Unsubscribe=One-Click'), ` ${FORM.toUpperCase()} ; charset=utf-8`),
    ).toBe('unsubscribe');
  });

  it('refuses a one-click that also names another action', () => {
    expect(parseUnsubscribeForm(Buffer.from('List-Unsubscribe=One-Click&action=delete'), FORM)).toBeUndefined();
    expect(parseUnsubscribeForm(Buffer.from('action=&List-Unsubscribe=One-Click'), FORM)).toBeUndefined();
  });
});

describe('multipart bodies', () => {
  it('reads a well-formed body (the builder below is faithful)', () => {
    expect(parseUnsubscribeForm(multipart(ONE_CLICK_PART), TYPE)).toBe('unsubscribe');
  });

  it('refuses a body whose last delimiter is not the close delimiter', () => {
    const open = Buffer.from(`--${B}${ONE_CLICK_PART}--${B}\r\ntrailing`);
    expect(parseUnsubscribeForm(open, TYPE)).toBeUndefined();
  });

  it('refuses the whole body when a part has no blank line after its headers', () => {
    expect(parseUnsubscribeForm(multipart('\r\nX-Junk: 1\r\n', ONE_CLICK_PART), TYPE)).toBeUndefined();
  });

  it('skips a part with no headers at all (blank line first)', () => {
    expect(parseUnsubscribeForm(multipart('\r\n\r\nstray\r\n', ONE_CLICK_PART), TYPE)).toBe('unsubscribe');
  });

  it('reads the disposition from the headers only, never from the value', () => {
    const valueLooksLikeAHeader =
      '\r\nContent-Type: text/plain\r\n\r\nContent-Disposition: form-data; name="action"\r\n';
    expect(parseUnsubscribeForm(multipart(valueLooksLikeAHeader, ONE_CLICK_PART), TYPE)).toBe('unsubscribe');
  });

  it('needs the header line to start with Content-Disposition; the space after the colon is optional', () => {
    const impostor = '\r\nX-Content-Disposition: form-data; name="action"\r\n\r\ndelete\r\n';
    expect(parseUnsubscribeForm(multipart(impostor, ONE_CLICK_PART), TYPE)).toBe('unsubscribe');
    const tight = '\r\nContent-Disposition:form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n';
    expect(parseUnsubscribeForm(multipart(tight), TYPE)).toBe('unsubscribe');
    const spaced = '\r\nContent-Disposition:   form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n';
    expect(parseUnsubscribeForm(multipart(spaced), TYPE)).toBe('unsubscribe');
  });

  it('skips a part whose disposition has no name', () => {
    const nameless = '\r\nContent-Disposition: form-data\r\n\r\ndelete\r\n';
    expect(parseUnsubscribeForm(multipart(nameless, ONE_CLICK_PART), TYPE)).toBe('unsubscribe');
  });

  it('ignores file parts, with or without a space before filename', () => {
    for (const sep of ['; ', ';', ';  ']) {
      const file = `\r\nContent-Disposition: form-data; name="List-Unsubscribe"${sep}filename="a.txt"\r\n\r\nOne-Click\r\n`;
      expect(parseUnsubscribeForm(multipart(file), TYPE), JSON.stringify(sep)).toBeUndefined();
    }
  });

  it('drops only the CRLF that ends a value, not one inside it', () => {
    const inner = `--${B}\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-\r\nClick--${B}--\r\n`;
    expect(parseUnsubscribeForm(Buffer.from(inner), TYPE)).toBeUndefined();
  });
});
