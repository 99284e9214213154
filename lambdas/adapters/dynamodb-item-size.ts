/**
 * DynamoDB's item size, by the published rules ("DynamoDB item sizes and formats",
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html):
 *  - an item is the sum, over its attributes, of the name's UTF-8 bytes plus the value's size;
 *  - string: UTF-8 bytes; binary: raw bytes; null and boolean: 1 byte;
 *  - number: 1 byte per two significant digits (leading and trailing zeros trimmed), plus 1 byte;
 *  - list and map: 3 bytes plus their elements, each element 1 byte more (map keys count as names);
 *  - sets: the sum of their elements.
 * Storage adds 100 bytes per item for indexing (same page). One write unit covers 1 KB, one read unit
 * 4 KB ("Read/write capacity mode", same guide). Works on low-level AttributeValues, as DynamoDB sees them.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';

export const WRITE_UNIT_BYTES = 1024;
export const READ_UNIT_BYTES = 4096;
export const STORAGE_OVERHEAD_BYTES = 100;

export function itemSize(item: Record<string, AttributeValue>): number {
  let total = 0;
  for (const [name, value] of Object.entries(item)) total += utf8(name) + valueSize(value);
  return total;
}

export function writeUnits(bytes: number): number {
  return Math.max(1, Math.ceil(bytes / WRITE_UNIT_BYTES));
}

export function readUnits(bytes: number): number {
  return Math.max(1, Math.ceil(bytes / READ_UNIT_BYTES));
}

function valueSize(value: AttributeValue): number {
  if (value.S !== undefined) return utf8(value.S);
  if (value.N !== undefined) return numberSize(value.N);
  if (value.B !== undefined) return value.B.byteLength;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.SS !== undefined) return value.SS.reduce((n, s) => n + utf8(s), 0);
  if (value.NS !== undefined) return value.NS.reduce((n, s) => n + numberSize(s), 0);
  if (value.BS !== undefined) return value.BS.reduce((n, b) => n + b.byteLength, 0);
  if (value.L !== undefined) return 3 + value.L.reduce((n, v) => n + 1 + valueSize(v), 0);
  if (value.M !== undefined)
    return 3 + Object.entries(value.M).reduce((n, [k, v]) => n + 1 + utf8(k) + valueSize(v), 0);
  throw new TypeError('unknown AttributeValue type');
}

function numberSize(text: string): number {
  const digits = text.replace(/^[-+]/, '').split(/[eE]/)[0]!.replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  return Math.ceil(Math.max(1, digits.length) / 2) + 1;
}

function utf8(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
