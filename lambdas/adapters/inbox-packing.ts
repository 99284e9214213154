/**
 * How an inbox row's body is packed since version 2: still the events and the exact raw payload,
 * raw-deflated with a preset dictionary (inbox-codec.ts), but without what the row already says or what
 * only inflates under deflate, so AWS's SES examples fit one DynamoDB write unit (1 KB) with the content
 * key (test/unit/adapters/inbox-row-size.test.ts):
 *
 * - The events leave out `provider` (the key's prefix) and any `eventId` that can be derived: the first
 *   event's is the key's suffix, and a content key (`c1.`, pipeline/content-key.ts) is recomputed from
 *   the event it keys. An id that is neither is kept.
 * - An SNS envelope's `Signature` is base64 of random bytes: deflate stores 344 characters of it in about
 *   300 bytes. Packed as its 256 bytes, outside the deflated stream, with the offset it came from.
 *
 * Layout: one flag byte; with FLAG_SIGNATURE, the offset (uint16) and length (uint16) of the signature,
 * then its bytes; then the deflated `events JSON \n raw-without-signature`. Unpacking restores the raw
 * payload byte for byte; packing checks that it does, and stores the signature in place when it would not.
 */

import type { NormalizedEvent } from '../core/event.js';
import { contentEventId } from '../core/pipeline/content-key.js';
import { deflateWithDictionary, inflateWithDictionary, type StoredEvent } from './inbox-codec.js';
import { GAP_SEPARATOR, joinWhitespace, splitWhitespace } from './json-whitespace.js';

const FLAG_SIGNATURE = 1;
const FLAG_MESSAGE = 2;
/** The dictionary version-2 bodies are deflated with. */
export const PACKING_DICTIONARY = 2;

/** What version 2 keeps of an event. */
type PackedEvent = Omit<StoredEvent, 'provider' | 'eventId'> & { eventId?: string };

export interface Unpacked {
  events: StoredEvent[];
  raw: string;
}

/** `provider#eventId` -> [provider, eventId]. */
function splitKey(pk: string): [string, string] {
  const at = pk.indexOf('#');
  if (at < 1) throw new Error(`inbox key ${pk} has no provider prefix`);
  return [pk.slice(0, at), pk.slice(at + 1)];
}

function derivedId(event: StoredEvent, index: number, keyId: string): string | undefined {
  if (index === 0) return keyId;
  if (event.messageId === undefined) return undefined;
  return contentEventId({ ...event, raw: '', messageId: event.messageId } as NormalizedEvent & { messageId: string });
}

export function packEvents(events: readonly StoredEvent[], pk: string): PackedEvent[] {
  const [provider, keyId] = splitKey(pk);
  return events.map((event, index) => {
    if (event.provider !== provider) throw new Error(`inbox row ${pk} holds an event of ${event.provider}`);
    const { provider: _provider, eventId, ...rest } = event;
    return eventId === derivedId(event, index, keyId) ? rest : { eventId, ...rest };
  });
}

export function unpackEvents(packed: readonly PackedEvent[], pk: string): StoredEvent[] {
  const [provider, keyId] = splitKey(pk);
  return packed.map((event, index) => {
    const withProvider = { provider, ...event } as StoredEvent;
    const eventId = event.eventId ?? derivedId(withProvider, index, keyId);
    if (eventId === undefined) throw new Error(`inbox row ${pk}: event ${index} has no id to derive`);
    return { ...withProvider, eventId };
  });
}

/** The envelope's `Signature` and `Message`, when it is one: both are stored apart from the rest. */
function envelopeFields(raw: string): { signature?: string; message?: string } {
  try {
    const parsed = JSON.parse(raw) as { Signature?: unknown; Message?: unknown };
    return {
      ...(typeof parsed.Signature === 'string' ? { signature: parsed.Signature } : {}),
      ...(typeof parsed.Message === 'string' ? { message: parsed.Message } : {}),
    };
  } catch {
    return {};
  }
}

const U16 = 0xffff;
const escaped = (text: string) => JSON.stringify(text).slice(1, -1);

/** `text` without `length` characters at `offset`. */
const cut = (text: string, offset: number, length: number) => text.slice(0, offset) + text.slice(offset + length);

/**
 * A signature of at least this many bytes (SNS's RSA-2048 one is 256), cut out of the stream, leaves a
 * body smaller than the plain one, so the plain one is not deflated beside it: over 3,000 varied SES
 * envelopes with random 256- and 512-byte signatures the plain body was 35 to 131 bytes larger, never
 * smaller (the packing test checks it on every genuine SES example). An RSA signature's bytes look
 * random; one that compressed (never a real one) would cost about its own length at most, in a larger
 * row, never the payload: every body is checked to unpack byte for byte.
 */
const SIGNATURE_ALWAYS_WINS = 256;

export function packBody(events: readonly StoredEvent[], raw: string, pk: string): Buffer {
  const eventsLine = JSON.stringify(packEvents(events, pk));
  const fields = envelopeFields(raw);
  const split = fields.message === undefined ? undefined : splitWhitespace(fields.message);
  // The whitespace split wins on irregular indentation and loses on the layouts the dictionary holds:
  // the smallest, once it is checked to give the payload back byte for byte (smallest first, so the
  // common case checks one). A level-9 deflate with the dictionary costs more than checking the SNS
  // signature does, so none is made that cannot win: no split of a compact message (SES publishes its
  // notifications compact), which would only move it and add its gaps (over 720 envelopes of the genuine
  // SES examples made compact, each signed anew with random ids, the split body was 3 to 17 bytes larger
  // every time).
  const candidates = [
    split?.gaps.some((gap) => gap !== '') ? packParts(eventsLine, raw, fields, split) : undefined,
    packParts(eventsLine, raw, fields),
  ]
    .filter((packed): packed is Buffer => packed !== undefined)
    .sort((a, b) => a.length - b.length);
  const checked = candidates.find((packed) => unpackBody(packed, pk).raw === raw);
  if (checked && signatureBytes(checked) >= SIGNATURE_ALWAYS_WINS) return checked;
  const plain = Buffer.concat([Buffer.from([0]), deflateWithDictionary(`${eventsLine}\n${raw}`, PACKING_DICTIONARY)]);
  return checked && checked.length <= plain.length ? checked : plain;
}

/** The length of the signature a packed body carries as bytes (0 without one). */
function signatureBytes(packed: Buffer): number {
  return packed.readUInt8(0) & FLAG_SIGNATURE ? packed.readUInt16BE(3) : 0;
}

/**
 * A candidate body: the signature as bytes, and the message's whitespace split off when `split` is
 * given; undefined when it would carry neither (the plain body is that).
 */
export function packParts(
  eventsLine: string,
  raw: string,
  { signature, message }: ReturnType<typeof envelopeFields>,
  split?: ReturnType<typeof splitWhitespace>,
): Buffer | undefined {
  const head: number[] = [0];
  const parts: Buffer[] = [];
  let rest = raw;
  const u16 = (...values: number[]) => {
    const b = Buffer.alloc(2 * values.length);
    values.forEach((v, i) => {
      b.writeUInt16BE(v, 2 * i);
    });
    return b;
  };
  if (signature !== undefined) {
    const bytes = Buffer.from(signature, 'base64');
    const offset = rest.indexOf(signature);
    if (bytes.toString('base64') === signature && offset >= 0 && offset <= U16 && bytes.length <= U16) {
      head[0]! |= FLAG_SIGNATURE;
      parts.push(u16(offset, bytes.length), bytes);
      rest = cut(rest, offset, signature.length);
    }
  }
  let middle = '';
  if (split && message !== undefined) {
    const text = escaped(message);
    const offset = rest.indexOf(text);
    const { compact, gaps } = split;
    const compactText = escaped(compact);
    const gapText = gaps.join(GAP_SEPARATOR);
    if (offset >= 0 && offset <= U16 && compactText.length <= U16 && gapText.length <= U16) {
      head[0]! |= FLAG_MESSAGE;
      parts.push(u16(offset, compactText.length, gapText.length));
      middle = compactText + gapText;
      rest = cut(rest, offset, text.length);
    }
  }
  if (head[0] === 0) return undefined;
  const deflated = deflateWithDictionary(`${eventsLine}\n${middle}${rest}`, PACKING_DICTIONARY);
  return Buffer.concat([Buffer.from(head), ...parts, deflated]);
}

export function unpackBody(body: Uint8Array, pk: string): Unpacked {
  const buffer = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const flags = buffer.readUInt8(0);
  let at = 1;
  let signature: { offset: number; text: string } | undefined;
  if (flags & FLAG_SIGNATURE) {
    const offset = buffer.readUInt16BE(at);
    const length = buffer.readUInt16BE(at + 2);
    signature = { offset, text: buffer.subarray(at + 4, at + 4 + length).toString('base64') };
    at += 4 + length;
  }
  let message: { offset: number; compactLength: number; gapLength: number } | undefined;
  if (flags & FLAG_MESSAGE) {
    message = {
      offset: buffer.readUInt16BE(at),
      compactLength: buffer.readUInt16BE(at + 2),
      gapLength: buffer.readUInt16BE(at + 4),
    };
    at += 6;
  }
  const plain = inflateWithDictionary(buffer.subarray(at), PACKING_DICTIONARY);
  // JSON.stringify never writes a raw newline, so the first one ends the events line.
  const newline = plain.indexOf('\n');
  let rest = plain.slice(newline + 1);
  if (message) {
    const compact = JSON.parse(`"${rest.slice(0, message.compactLength)}"`) as string;
    const gaps = rest.slice(message.compactLength, message.compactLength + message.gapLength).split(GAP_SEPARATOR);
    rest = rest.slice(message.compactLength + message.gapLength);
    rest = rest.slice(0, message.offset) + escaped(joinWhitespace(compact, gaps)) + rest.slice(message.offset);
  }
  if (signature) rest = rest.slice(0, signature.offset) + signature.text + rest.slice(signature.offset);
  return { events: unpackEvents(JSON.parse(plain.slice(0, newline)) as PackedEvent[], pk), raw: rest };
}
