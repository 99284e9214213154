/**
 * The POST body of `/unsubscribe/{token}`. RFC 8058 mailbox providers send `List-Unsubscribe=One-Click`,
 * form-urlencoded or multipart/form-data; the page's own buttons send the same field, or
 * `action=resubscribe`. Anything else is refused (400) and nothing is written.
 */
export type UnsubscribeAction = 'unsubscribe' | 'resubscribe';

/** Generous for two short fields, tiny next to the webhook cap. */
export const MAX_FORM_BYTES = 16 * 1024;

export function parseUnsubscribeForm(body: Buffer, contentType: string | undefined): UnsubscribeAction | undefined {
  const fields = readFields(body, contentType ?? '');
  if (!fields) return undefined;
  const action = fields.get('action');
  if (action === 'resubscribe') return 'resubscribe';
  if (action !== undefined && action !== 'unsubscribe') return undefined;
  return fields.get('List-Unsubscribe') === 'One-Click' ? 'unsubscribe' : undefined;
}

function readFields(body: Buffer, contentType: string): Map<string, string> | undefined {
  if (body.length > MAX_FORM_BYTES) return undefined;
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (type === 'multipart/form-data') return readMultipart(body, contentType);
  // Form-encoded is the RFC's first form; a sender that omits the type gets the same reading.
  if (type === '' || type === 'application/x-www-form-urlencoded' || type === 'text/plain') {
    return firstValues(new URLSearchParams(body.toString('utf8').trim()));
  }
  return undefined;
}

function firstValues(entries: Iterable<[string, string]>): Map<string, string> {
  const fields = new Map<string, string>();
  for (const [name, value] of entries) if (!fields.has(name)) fields.set(name, value);
  return fields;
}

const BOUNDARY = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;"]{1,70}))/i;
const NAME = /;\s*name="([^"]*)"/i;

/** Just enough multipart: text fields by name, parts with a filename ignored. */
function readMultipart(body: Buffer, contentType: string): Map<string, string> | undefined {
  const match = BOUNDARY.exec(contentType);
  if (!match) return undefined;
  const delimiter = `--${match[1] ?? match[2]}`;
  const text = body.toString('utf8');
  const parts = text.split(delimiter);
  // Before the first delimiter is the preamble; the last part starts with `--` (the close delimiter).
  if (parts.length < 3 || !parts[parts.length - 1]!.startsWith('--')) return undefined;
  const entries: Array<[string, string]> = [];
  for (const part of parts.slice(1, -1)) {
    const split = part.indexOf('\r\n\r\n');
    if (split < 0) return undefined;
    const headers = part.slice(0, split);
    const disposition = headers.split('\r\n').find((line) => /^content-disposition:\s*form-data/i.test(line));
    const name = disposition && NAME.exec(disposition)?.[1];
    if (!name || /;\s*filename=/i.test(disposition)) continue;
    // The part's value ends with the CRLF that precedes the next delimiter.
    entries.push([name, part.slice(split + 4).replace(/\r\n$/, '')]);
  }
  return firstValues(entries);
}
