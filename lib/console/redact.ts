/**
 * A stored raw payload made fit to show: signatures, tokens and anything named like a secret replaced,
 * in JSON (at any depth, and inside JSON held in a string, as SNS's `Message`) and in form bodies.
 * What is left is what the provider said about the email, which is what the operator came for.
 */

const SECRET_NAME = /signature|token|secret|password|passwd|api[-_]?key|authorization|credential|signingcert/i;
export const REDACTED = '[redacted]';
/** A page shows this much of a payload at most. */
const MAX_SHOWN = 64 * 1024;

export function redactPayload(raw: string): string {
  const shown = redactText(raw);
  return shown.length > MAX_SHOWN
    ? `${shown.slice(0, MAX_SHOWN)}\n… (${shown.length - MAX_SHOWN} more characters)`
    : shown;
}

function redactText(raw: string): string {
  const trimmed = raw.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return JSON.stringify(redactValue(JSON.parse(trimmed)), null, 2);
    } catch {
      // Not JSON after all: shown as text below.
    }
  }
  if (/^[^\s=&]+=[^\s]*(&[^\s=&]+=[^\s]*)*$/.test(trimmed)) {
    const params = new URLSearchParams(trimmed);
    for (const key of [...params.keys()]) if (SECRET_NAME.test(key)) params.set(key, REDACTED);
    return [...params].map(([k, v]) => `${k}=${v}`).join('\n');
  }
  return raw;
}

function redactValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactValue);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, SECRET_NAME.test(k) ? REDACTED : redactValue(v)]),
    );
  if (typeof value === 'string' && /^\s*[{[]/.test(value)) {
    try {
      return JSON.stringify(redactValue(JSON.parse(value)));
    } catch {
      return value;
    }
  }
  return value;
}
