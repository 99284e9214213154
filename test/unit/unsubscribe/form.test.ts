import { describe, expect, it } from 'vitest';
import { parseUnsubscribeForm } from '../../../lambdas/core/unsubscribe/form.js';

const FORM = 'application/x-www-form-urlencoded';

function multipart(
  fields: Record<string, string>,
  boundary = '----WebKitFormBoundary7MA4YWxkTrZu0gW',
): { body: Buffer; type: string } {
  const parts = Object.entries(fields).map(
    ([n, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${n}"\r\n\r\n${v}\r\n`,
  );
  return {
    body: Buffer.from(`${parts.join('')}--${boundary}--\r\n`),
    type: `multipart/form-data; boundary=${boundary}`,
  };
}

describe('the POST body of /unsubscribe/{token}', () => {
  it('reads the RFC 8058 body, form-encoded, with or without a content type', () => {
    expect(parseUnsubscribeForm(Buffer.from('List-Unsubscribe=One-Click'), FORM)).toBe('unsubscribe');
    expect(parseUnsubscribeForm(Buffer.from('List-Unsubscribe=One-Click'), `${FORM}; charset=UTF-8`)).toBe(
      'unsubscribe',
    );
    expect(parseUnsubscribeForm(Buffer.from('List-Unsubscribe=One-Click\r\n'), undefined)).toBe('unsubscribe');
  });

  it('reads the same field from multipart/form-data, quoted boundary or not', () => {
    const { body, type } = multipart({ 'List-Unsubscribe': 'One-Click' });
    expect(parseUnsubscribeForm(body, type)).toBe('unsubscribe');
    const quoted = multipart({ 'List-Unsubscribe': 'One-Click' }, 'abc');
    expect(parseUnsubscribeForm(quoted.body, 'multipart/form-data; boundary="abc"')).toBe('unsubscribe');
    expect(parseUnsubscribeForm(multipart({ action: 'resubscribe' }).body, type)).toBe('resubscribe');
  });

  it('reads the page buttons: the one-click field, or action=resubscribe', () => {
    expect(parseUnsubscribeForm(Buffer.from('action=resubscribe'), FORM)).toBe('resubscribe');
    expect(parseUnsubscribeForm(Buffer.from('List-Unsubscribe=One-Click&action=unsubscribe'), FORM)).toBe(
      'unsubscribe',
    );
  });

  it('refuses anything else', () => {
    for (const body of [
      '',
      'List-Unsubscribe=Two-Click',
      'list-unsubscribe=one-click',
      'action=delete',
      'action=unsubscribe',
      '{"List-Unsubscribe":"One-Click"}',
    ]) {
      expect(parseUnsubscribeForm(Buffer.from(body), FORM), body).toBeUndefined();
    }
    expect(parseUnsubscribeForm(Buffer.from('List-Unsubscribe=One-Click'), 'application/json')).toBeUndefined();
    expect(
      parseUnsubscribeForm(Buffer.from(`List-Unsubscribe=One-Click&x=${'a'.repeat(20_000)}`), FORM),
    ).toBeUndefined();
    const { body } = multipart({ 'List-Unsubscribe': 'One-Click' });
    expect(parseUnsubscribeForm(body, 'multipart/form-data')).toBeUndefined(); // no boundary
    expect(parseUnsubscribeForm(body.subarray(0, body.length - 8), multipart({}).type)).toBeUndefined(); // no close delimiter
  });

  it('takes the first of repeated fields, so a later copy cannot change the action', () => {
    expect(parseUnsubscribeForm(Buffer.from('action=resubscribe&action=unsubscribe'), FORM)).toBe('resubscribe');
    expect(parseUnsubscribeForm(Buffer.from('List-Unsubscribe=One-Click&List-Unsubscribe=No'), FORM)).toBe(
      'unsubscribe',
    );
  });
});
