/**
 * The handful of ASN.1 DER encoders an X.509 certificate needs. Node can parse certificates but not
 * create them, and the demo must not depend on the openssl binary or a package, so we write the bytes.
 * Definite lengths only, which is what DER requires.
 */

export function tlv(tag: number, content: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), encodeLength(content.length), content]);
}

function encodeLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

export const sequence = (...items: Buffer[]): Buffer => tlv(0x30, Buffer.concat(items));
export const set = (...items: Buffer[]): Buffer => tlv(0x31, Buffer.concat(items));
export const nullValue = (): Buffer => Buffer.from([0x05, 0x00]);
export const octetString = (content: Buffer): Buffer => tlv(0x04, content);
export const utf8String = (value: string): Buffer => tlv(0x0c, Buffer.from(value, 'utf8'));
export const boolean = (value: boolean): Buffer => Buffer.from([0x01, 0x01, value ? 0xff : 0x00]);

/** A context-specific, constructed, explicitly tagged value: `[n] EXPLICIT`. */
export const explicit = (tagNumber: number, content: Buffer): Buffer => tlv(0xa0 | tagNumber, content);

/** BIT STRING; `unusedBits` counts the padding bits at the end of the last byte. */
export function bitString(content: Buffer, unusedBits = 0): Buffer {
  return tlv(0x03, Buffer.concat([Buffer.from([unusedBits]), content]));
}

/** A non-negative INTEGER from big-endian magnitude bytes or a small number. */
export function integer(value: Buffer | number): Buffer {
  let bytes = typeof value === 'number' ? numberBytes(value) : Buffer.from(value);
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  bytes = bytes.subarray(start);
  if (bytes.length === 0) bytes = Buffer.from([0]);
  // The top bit is the sign in two's complement: pad so a large magnitude stays positive.
  if (bytes[0]! & 0x80) bytes = Buffer.concat([Buffer.from([0]), bytes]);
  return tlv(0x02, bytes);
}

function numberBytes(value: number): Buffer {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError('integer must be a non-negative safe integer');
  const bytes: number[] = [];
  for (let n = value; n > 0; n = Math.floor(n / 256)) bytes.unshift(n % 256);
  return Buffer.from(bytes.length ? bytes : [0]);
}

/** OBJECT IDENTIFIER from dotted form: first two arcs packed as 40·a + b, then base-128 per arc. */
export function objectIdentifier(dotted: string): Buffer {
  const arcs = dotted.split('.').map((arc) => {
    if (!/^[0-9]+$/.test(arc)) throw new RangeError(`bad OID arc in ${dotted}`);
    return Number(arc);
  });
  if (arcs.length < 2) throw new RangeError(`OID needs two arcs: ${dotted}`);
  const body: number[] = [];
  for (const arc of [arcs[0]! * 40 + arcs[1]!, ...arcs.slice(2)]) {
    const chunk = [arc & 0x7f];
    for (let n = Math.floor(arc / 128); n > 0; n = Math.floor(n / 128)) chunk.unshift((n & 0x7f) | 0x80);
    body.push(...chunk);
  }
  return tlv(0x06, Buffer.from(body));
}

/** RFC 5280 §4.1.2.5: UTCTime through 2049, GeneralizedTime from 2050, always UTC with seconds. */
export function time(date: Date): Buffer {
  const iso = date.toISOString(); // 2024-01-02T03:04:05.678Z
  const digits = iso.slice(0, 19).replace(/[-:T]/g, ''); // 20240102030405
  const year = date.getUTCFullYear();
  if (year >= 1950 && year < 2050) return tlv(0x17, Buffer.from(`${digits.slice(2)}Z`, 'ascii'));
  return tlv(0x18, Buffer.from(`${digits}Z`, 'ascii'));
}

export function toPem(label: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}
