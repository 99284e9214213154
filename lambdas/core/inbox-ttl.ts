/**
 * The inbox row lifetime's names, in a module with no imports: the runtime's environment contract
 * (adapters/environment.ts) and the retention check (inbox-retention.ts, which loads every provider)
 * both spell them from here, and the consumer's bundle need not carry the providers to do so.
 */
export const INBOX_TTL_VARIABLE = 'INBOX_TTL_DAYS';
export const INBOX_TTL_CONTEXT = 'inboxTtlDays';
