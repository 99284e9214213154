/**
 * A reason `npm start` cannot run that the operator can fix: a bad variable, a busy port, another
 * Ratchet on the same data directory. `bin/local.ts` prints its message (one line per problem) and
 * exits 1, with no stack trace: the trace would only bury the line that matters.
 */
export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartupError';
  }
}
