/**
 * HTML built by one tagged template that escapes every value it is given, unless the value is itself
 * HTML built here: nothing read from the table, the inbox or a request reaches a page unescaped.
 */

export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Part = Html | string | number | boolean | null | undefined | readonly Part[];

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function render(part: Part): string {
  if (part instanceof Html) return part.text;
  if (Array.isArray(part)) return part.map(render).join('');
  if (part === null || part === undefined || part === false) return '';
  return escapeHtml(String(part));
}

export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new Html(out);
}

/** A time as ISO 8601 in a <time> element, or a dash. */
export function time(ms: number | undefined): Html {
  if (ms === undefined || !Number.isFinite(ms)) return html`—`;
  const iso = new Date(ms).toISOString();
  return html`<time datetime="${iso}">${iso.replace('T', ' ').replace(/\.\d{3}Z$/, 'Z')}</time>`;
}

/** A query string from the non-empty values. */
export function query(values: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) if (v !== undefined && v !== '') params.set(k, v);
  const text = params.toString();
  return text ? `?${text}` : '';
}
