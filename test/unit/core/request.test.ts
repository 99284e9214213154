import { describe, expect, it } from 'vitest';
import { AuthenticationError, MalformedRequestError } from '../../../lambdas/core/errors.js';
import { normalizeRecipient } from '../../../lambdas/core/event.js';
import {
  bodyText,
  constantTimeEqual,
  decodeBase64Strict,
  decodeHexStrict,
  lowerCaseHeaders,
  parseUnixSeconds,
  requireHeader,
} from '../../../lambdas/core/request.js';

describe('request helpers', () => {
  it('lower-cases header names and comma-joins repeats, like API Gateway', () => {
    expect(lowerCaseHeaders({ 'X-Sig': 'a', 'x-sig': 'b', Other: ['1', '2'] })).toEqual({
      'x-sig': 'a,b',
      other: '1,2',
    });
  });

  it('requireHeader rejects missing and blank headers as authentication failures', () => {
    const request = { body: Buffer.alloc(0), headers: { present: 'v', blank: '  ' } };
    expect(requireHeader(request, 'Present')).toBe('v');
    expect(() => requireHeader(request, 'missing')).toThrow(AuthenticationError);
    expect(() => requireHeader(request, 'blank')).toThrow(AuthenticationError);
  });

  it('parseUnixSeconds accepts digits only', () => {
    expect(parseUnixSeconds('1674087231', 't')).toBe(1674087231);
    for (const bad of ['1674087231abc', ' 1674087231', '-1', '1.5', '', '1e9']) {
      expect(() => parseUnixSeconds(bad, 't')).toThrow(AuthenticationError);
    }
  });

  it('decodes base64 and hex strictly', () => {
    expect(decodeBase64Strict('aGk=', 's').toString()).toBe('hi');
    for (const bad of ['aGk', 'a Gk=', 'aGk=!', '', 'aG=k'])
      expect(() => decodeBase64Strict(bad, 's')).toThrow(AuthenticationError);
    expect(decodeHexStrict('00ff', 'h', 2)).toEqual(Buffer.from([0, 255]));
    expect(() => decodeHexStrict('00f', 'h')).toThrow(AuthenticationError);
    expect(() => decodeHexStrict('zz', 'h')).toThrow(AuthenticationError);
    expect(() => decodeHexStrict('00ff', 'h', 3)).toThrow(AuthenticationError);
  });

  it('constantTimeEqual compares content and length', () => {
    expect(constantTimeEqual(Buffer.from('abc'), Buffer.from('abc'))).toBe(true);
    expect(constantTimeEqual(Buffer.from('abc'), Buffer.from('abd'))).toBe(false);
    expect(constantTimeEqual(Buffer.from('abc'), Buffer.from('abcd'))).toBe(false);
  });

  it('bodyText refuses invalid UTF-8 instead of substituting', () => {
    expect(bodyText(Buffer.from('héllo'))).toBe('héllo');
    expect(() => bodyText(Buffer.from([0x7b, 0xff, 0x7d]))).toThrow(MalformedRequestError);
  });
});

describe('recipients', () => {
  it('normalizes by trimming and lower-casing', () => {
    expect(normalizeRecipient('  Someone@Example.COM ')).toBe('someone@example.com');
  });
  it.each([['not-an-address'], ['a@b'], ['two@@example.com'], ['a b@example.com'], ['<a@example.com>'], [''], [42]])(
    'rejects %s',
    (value) => {
      expect(() => normalizeRecipient(value)).toThrow(MalformedRequestError);
    },
  );
});

describe('request helpers, edge cases', () => {
  it('lowerCaseHeaders skips headers whose value is undefined', () => {
    expect(lowerCaseHeaders({ 'X-A': undefined, 'X-B': 'b', 'x-a': 'a' })).toEqual({ 'x-b': 'b', 'x-a': 'a' });
    expect(lowerCaseHeaders(undefined)).toEqual({});
  });

  it('decodeHexStrict without an expected length accepts any whole number of bytes', () => {
    expect(decodeHexStrict('abcd', 'h')).toEqual(Buffer.from([0xab, 0xcd]));
    expect(() => decodeHexStrict('00ff', 'signature', 3)).toThrow(
      new AuthenticationError('signature has the wrong length'),
    );
  });

  it('bodyText names the failure', () => {
    expect(() => bodyText(Buffer.from([0xc3]))).toThrow(new MalformedRequestError('body is not valid UTF-8'));
  });
});

describe('recipients, exactly', () => {
  const local = (n: number) => 'a'.repeat(n);
  // '@example.com' is 12 characters.
  it('accepts an address of 320 characters and refuses one of 321', () => {
    expect(normalizeRecipient(`${local(308)}@example.com`)).toHaveLength(320);
    expect(() => normalizeRecipient(`${local(309)}@example.com`)).toThrow(
      new MalformedRequestError('recipient is not an email address'),
    );
  });

  it('counts the length after trimming', () => {
    expect(normalizeRecipient(`  ${local(308)}@EXAMPLE.com  `)).toBe(`${local(308)}@example.com`);
  });

  it('names what is wrong', () => {
    expect(() => normalizeRecipient(42)).toThrow(new MalformedRequestError('recipient is not a string'));
    expect(() => normalizeRecipient('   ')).toThrow(new MalformedRequestError('recipient is not an email address'));
  });
});
