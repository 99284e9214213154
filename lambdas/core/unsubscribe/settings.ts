/** What the unsubscribe page shows: `TOPIC_LABELS` (`newsletter=Weekly newsletter,...`) and `UNSUBSCRIBE_BRAND`. */
import type { SettingDeclaration } from '../settings.js';
import { GLOBAL_TOPIC } from './token.js';

export interface PageSettings {
  /** Shown in the page title and above the heading; empty means no brand. */
  brand: string;
  labels: ReadonlyMap<string, string>;
}

const MAX_TEXT = 120;
export const TOPIC_LABELS_VARIABLE = 'TOPIC_LABELS';

/** Everything pageSettingsFrom reads. */
export const PAGE_SETTINGS: readonly SettingDeclaration[] = [
  {
    variable: TOPIC_LABELS_VARIABLE,
    contextKey: 'topicLabels',
    describe: `What the unsubscribe page calls each topic: \`newsletter=Weekly newsletter,product=Product updates\`, labels up to ${MAX_TEXT} characters (default: a topic shows its name)`,
  },
  {
    variable: 'UNSUBSCRIBE_BRAND',
    describe: `The name in the unsubscribe page's title and above its question, up to ${MAX_TEXT} characters (default: none)`,
  },
];

/** Parsed once at start: a malformed TOPIC_LABELS is an operator mistake and fails loudly. */
export function pageSettingsFrom(settings: Readonly<Record<string, string | undefined>>): PageSettings {
  const labels = new Map<string, string>();
  for (const entry of (settings[TOPIC_LABELS_VARIABLE] ?? '').split(',')) {
    if (entry.trim() === '') continue;
    const at = entry.indexOf('=');
    const topic = at < 0 ? '' : entry.slice(0, at).trim();
    const label = at < 0 ? '' : entry.slice(at + 1).trim();
    if (topic === '' || label === '' || label.length > MAX_TEXT) {
      throw new Error('TOPIC_LABELS must be comma-separated `topic=Label` pairs (labels up to 120 characters)');
    }
    labels.set(topic, label);
  }
  const brand = (settings.UNSUBSCRIBE_BRAND ?? '').trim();
  if (brand.length > MAX_TEXT) throw new Error('UNSUBSCRIBE_BRAND is longer than 120 characters');
  return { brand, labels };
}

/** What the page calls a topic: its label, else its own name; `*` is every list. */
export function topicLabel(topic: string, page: PageSettings): string {
  if (topic === GLOBAL_TOPIC) return 'all mailing lists';
  return page.labels.get(topic) ?? topic;
}

/** `jane@example.com` → `j•••@example.com`: enough for the owner to recognise, not enough to harvest. */
export function maskAddress(email: string): string {
  const at = email.lastIndexOf('@');
  const local = email.slice(0, at);
  return `${Array.from(local)[0] ?? ''}•••${email.slice(at)}`;
}
