/**
 * Behaviour defaults the runtime applies whatever runs it (Lambda or `npm start`). Pure data; the
 * stack re-exports them through lib/definitions.ts next to its own sizing (memory, timeouts).
 */

/** Bodies above this are answered 413 before anything is parsed (API Gateway's own cap is 10 MB). */
export const MAX_BODY_BYTES = 1024 * 1024;
