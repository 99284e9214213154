/**
 * How a list of secrets is written, wherever it is read (a provider's credentials, the unsubscribe
 * keys; an environment variable or a Secrets Manager value): a JSON array of strings, or a
 * comma-separated list. Each entry is trimmed and blank ones are dropped, so a rotation can add the
 * new secret beside the old one. PEM keys contain no commas, so a comma-separated list of PEMs splits
 * correctly.
 */

/**
 * A list that does not parse: a configuration mistake, never transient. Its message never quotes the
 * value, which is a secret: JSON.parse's own message does quote its input (Node 20: `Unexpected token
 * 'a', "[abc" is not valid JSON`), so it is never passed on.
 */
export class SecretListFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretListFormatError';
  }
}

/**
 * `subject` names the list in the messages (`unsubscribe secrets must be …`); without it, as for a
 * provider's credentials whose caller names the variable, a message starts with the verb.
 */
export function splitSecretList(value: string | undefined, subject?: string): string[] {
  const trimmed = value?.trim() ?? '';
  if (trimmed.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      throw new SecretListFormatError(
        subject === undefined
          ? 'starts with "[" but is not valid JSON (expected a JSON array of strings)'
          : `${subject} must be a JSON array of strings (this starts with "[" but is not valid JSON)`,
      );
    }
    if (!Array.isArray(parsed) || !parsed.every((v) => typeof v === 'string'))
      throw new SecretListFormatError(`${subject === undefined ? '' : `${subject} `}must be a JSON array of strings`);
    return parsed.map((v: string) => v.trim()).filter(Boolean);
  }
  return trimmed
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
}
