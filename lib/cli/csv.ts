/** RFC 4180 CSV: quoted fields may hold commas, doubled quotes and line breaks. Small on purpose. */

/** Splits one logical record; returns undefined when a quoted field is still open (the caller appends the next line). */
export function parseCsvRecord(text: string): string[] | undefined {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      fields.push(field);
      field = '';
    } else field += c;
  }
  if (quoted) return undefined;
  fields.push(field.replace(/\r$/, ''));
  return fields;
}

/**
 * Rows as objects keyed by the header (trimmed, case kept), from an async source of lines. `onHeader`
 * sees the header before any row is yielded, and may throw to refuse the file.
 */
export async function* csvRows(
  lines: AsyncIterable<string>,
  onHeader: (header: string[]) => void = () => undefined,
): AsyncGenerator<{ row: Record<string, string>; line: number }> {
  let header: string[] | undefined;
  let pending = '';
  let line = 0;
  let startLine = 0;
  for await (const raw of lines) {
    line++;
    if (pending === '') startLine = line;
    pending = pending === '' ? raw.replace(/^\uFEFF/, '') : `${pending}\n${raw}`;
    const fields = parseCsvRecord(pending);
    if (!fields) continue;
    pending = '';
    if (fields.length === 1 && fields[0]!.trim() === '') continue;
    if (!header) {
      header = fields.map((f) => f.trim());
      onHeader(header);
      continue;
    }
    yield { row: Object.fromEntries(header.map((name, i) => [name, (fields[i] ?? '').trim()])), line: startLine };
  }
}

export function csvField(value: unknown): string {
  const text = value === undefined || value === null ? '' : Array.isArray(value) ? value.join(';') : String(value);
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
