/**
 * Behaviour defaults the runtime applies whatever runs it (Lambda or `npm start`). Pure data; the
 * stack re-exports them through lib/definitions.ts next to its own sizing (memory, timeouts).
 */

/** Bodies above this are answered 413 before anything is parsed (API Gateway's own cap is 10 MB). */
export const MAX_BODY_BYTES = 1024 * 1024;

/** The sweeper's backoff: when an unapplied row is re-sent, how often, and when it is given up on. */
export const SWEEPER_BACKOFF = {
  /** A row not applied this long after it was stored is re-enqueued; the wait doubles after each re-send. */
  resendAfterSeconds: 5 * 60,
  /** The doubling stops here: a row still failing is re-sent at most daily... */
  maxResendIntervalSeconds: 24 * 60 * 60,
  /**
   * ...and at most this many times: with the defaults the last re-send comes about 2.8 days after the
   * put, and the row is given up on (left to the DLQ and an operator) if still unapplied a day later.
   */
  maxResends: 10,
} as const;
