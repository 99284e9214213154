/**
 * Topic context (topics and the unsubscribe page): `topicAliases` (canonical=alias pairs, env TOPIC_ALIASES) and
 * `topicLabels` (topic=label pairs, env TOPIC_LABELS), validated at synth so a typo fails the deploy
 * instead of every start of the edge. Both are handed to the runtime as the same comma list.
 */
import { ContextError, type Getter, isUnset, list } from './context-values.js';

/** Topic names are case-sensitive: they are stored as given and matched exactly, so `News` and `news` are two topics. */
export const TOPIC_NAME = /^[A-Za-z0-9][A-Za-z0-9:._-]{0,127}$/;

/** `sendgrid:group:4242=newsletter,ses:main:weekly=newsletter` → the same text, normalized (trimmed). */
export function topicAliases(get: Getter): string | undefined {
  const pairs = pairsOf(get, 'topicAliases');
  if (!pairs) return undefined;
  const seen = new Map<string, string>();
  for (const [canonical, alias] of pairs) {
    for (const name of [canonical, alias]) {
      if (!TOPIC_NAME.test(name)) {
        throw new ContextError(
          `context topicAliases: ${JSON.stringify(name)} is not a topic name (${TOPIC_NAME.source})`,
        );
      }
    }
    const earlier = seen.get(canonical);
    if (earlier !== undefined && earlier !== alias) {
      throw new ContextError(`context topicAliases maps ${canonical} twice (${earlier}, ${alias})`);
    }
    seen.set(canonical, alias);
  }
  return join(pairs);
}

/** `newsletter=Weekly newsletter`: the label is free text, but not a comma or `=` (the list's separators). */
export function topicLabels(get: Getter): string | undefined {
  const pairs = pairsOf(get, 'topicLabels');
  if (!pairs) return undefined;
  for (const [topic, label] of pairs) {
    if (!TOPIC_NAME.test(topic)) {
      throw new ContextError(
        `context topicLabels: ${JSON.stringify(topic)} is not a topic name (${TOPIC_NAME.source})`,
      );
    }
    if (label.length > 200) throw new ContextError(`context topicLabels: the label of ${topic} is over 200 characters`);
  }
  return join(pairs);
}

function pairsOf(get: Getter, key: string): Array<[string, string]> | undefined {
  if (isUnset(get(key))) return undefined;
  const entries = list(get, key) ?? [];
  const pairs = entries.map((entry): [string, string] => {
    const parts = entry.split('=');
    if (parts.length !== 2 || parts[0]!.trim() === '' || parts[1]!.trim() === '') {
      throw new ContextError(`context ${key}: ${JSON.stringify(entry)} is not name=value`);
    }
    return [parts[0]!.trim(), parts[1]!.trim()];
  });
  return pairs.length > 0 ? pairs : undefined;
}

const join = (pairs: Array<[string, string]>): string => pairs.map(([k, v]) => `${k}=${v}`).join(',');
