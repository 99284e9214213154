/**
 * JSON for an SQS message body. SQS refuses a body holding a character outside #x9 | #xA | #xD |
 * #x20-#xD7FF | #xE000-#xFFFD | #x10000-#x10FFFF. JSON.stringify escapes control characters and lone
 * surrogates itself, but leaves the noncharacters U+FFFE and U+FFFF as they are, and an address
 * (normalizeRecipient accepts any local part without spaces or specials) or a provider's text may hold
 * them. Those two are escaped here; JSON.parse reads them back unchanged. A refused body would fail the
 * whole send it joined, every time it is retried.
 */
const REFUSED_BY_SQS = /[\uFFFE\uFFFF]/g;

export function sqsJson(value: unknown): string {
  return JSON.stringify(value).replace(REFUSED_BY_SQS, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}
