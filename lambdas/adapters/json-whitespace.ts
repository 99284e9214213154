/**
 * Lossless split of a JSON text into its compact form and the whitespace between its tokens, and back.
 * Deflate pays for every line break and indent of a pretty-printed document (AWS's SES examples are
 * indented irregularly), while the same whitespace, moved out and joined by one separator, costs almost
 * nothing. Works on any text: `join(split(text))` is checked by the caller, which keeps the text whole
 * when it is not (two bare words merged by the split, an unterminated string).
 */

const STRUCTURAL = new Set(['{', '}', '[', ']', ',', ':']);
const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
/** Never in JSON whitespace: it separates the gaps. */
export const GAP_SEPARATOR = '\u0000';

/** The end of the token starting at `i` (a string, one structural character, or a bare word). */
function tokenEnd(text: string, i: number): number {
  const c = text[i]!;
  if (STRUCTURAL.has(c)) return i + 1;
  if (c === '"') {
    let j = i + 1;
    while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
    return Math.min(j + 1, text.length);
  }
  let j = i + 1;
  while (j < text.length && !WHITESPACE.has(text[j]!) && !STRUCTURAL.has(text[j]!) && text[j] !== '"') j++;
  return j;
}

/** `text` -> its tokens without the whitespace between them, and that whitespace: one gap per token boundary. */
export function splitWhitespace(text: string): { compact: string; gaps: string[] } {
  const gaps: string[] = [];
  let compact = '';
  let i = 0;
  for (;;) {
    let j = i;
    while (j < text.length && WHITESPACE.has(text[j]!)) j++;
    gaps.push(text.slice(i, j));
    if (j >= text.length) break;
    const end = tokenEnd(text, j);
    compact += text.slice(j, end);
    i = end;
  }
  return { compact, gaps };
}

/** The inverse of splitWhitespace. */
export function joinWhitespace(compact: string, gaps: readonly string[]): string {
  let text = gaps[0] ?? '';
  let i = 0;
  let gap = 1;
  while (i < compact.length) {
    const end = tokenEnd(compact, i);
    text += compact.slice(i, end) + (gaps[gap++] ?? '');
    i = end;
  }
  return text;
}
