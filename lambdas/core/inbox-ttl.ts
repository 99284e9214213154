/**
 * The inbox row lifetime's names, in a module with no imports: the runtime's environment contract
 * (adapters/environment.ts) and the retention check (inbox-retention.ts, which loads every provider)
 * both spell them from here, and the consumer's bundle need not carry the providers to do so.
 */
export const INBOX_TTL_VARIABLE = 'INBOX_TTL_DAYS';
export const INBOX_TTL_CONTEXT = 'inboxTtlDays';
/** Inbox rows live this many days unless INBOX_TTL_DAYS (context inboxTtlDays) says otherwise. */
export const DEFAULT_INBOX_TTL_DAYS = 30;
/** How INBOX_TTL_DAYS reads, for core/settings.ts parseNumber (the environment contract uses the same rule). */
export const INBOX_TTL_RULE = {
  default: DEFAULT_INBOX_TTL_DAYS,
  expected: 'a non-negative number of days',
  min: 0,
} as const;
