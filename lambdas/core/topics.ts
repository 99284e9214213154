/**
 * Topic names and TOPIC_ALIASES. Pure: the stack (CDK context `topicAliases`), the local runtime and
 * the consumer all validate with the same parser, so a typo fails at start, never per event.
 *
 * Canonical names, one per provider scope (a public contract: they are the keys of the stored `topics` map):
 *   SendGrid group_unsubscribe / group_resubscribe   sendgrid:group:<asm_group_id>
 *   SES Subscription, per topicSubscriptionStatus    ses:<contactList>:<topicName>
 *   Postmark SubscriptionChange ManualSuppression    postmark:stream:<MessageStream>
 *   Resend contact.topics.updated                    resend:topic:<topic id>
 *   the generic contract                             the sender's own `topic`
 */

import type { SettingDeclaration } from './settings.js';

/** Case-sensitive; 1..128 characters; no spaces, `,` or `=` (the alias list's separators). */
export const TOPIC_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9:._-]{0,127}$/;

export const TOPIC_ALIASES_VARIABLE = 'TOPIC_ALIASES';

export const TOPIC_ALIASES_SETTING: SettingDeclaration = {
  variable: TOPIC_ALIASES_VARIABLE,
  contextKey: 'topicAliases',
  describe:
    'Canonical topic names stored under your own: `sendgrid:group:4242=newsletter,ses:main:weekly=newsletter`; read by the consumer, the sync worker and sweeper (a change walks the table again for the providers whose scopes it names), the CLI and `@ratchet-email/ratchet/client` (default: none, names stay canonical)',
};

export function isTopicName(value: unknown): value is string {
  return typeof value === 'string' && TOPIC_NAME_PATTERN.test(value);
}

/** canonical → the user's own name. Unmapped names keep their canonical name. */
export type TopicAliases = ReadonlyMap<string, string>;

export const NO_TOPIC_ALIASES: TopicAliases = new Map();

/**
 * Parses `canonical=alias,canonical=alias` (spaces around entries and names are ignored; blank means
 * none). Throws an Error naming the bad entry (by position, the text is configuration, not a secret)
 * when an entry is not `name=name`, a name breaks TOPIC_NAME_PATTERN, or one canonical name is given
 * two different aliases. Several canonical names may share one alias: that is the point (one
 * newsletter sent through two providers is one topic).
 */
export function parseTopicAliases(text: string | undefined, variable = TOPIC_ALIASES_VARIABLE): TopicAliases {
  const aliases = new Map<string, string>();
  if (text === undefined || text.trim() === '') return aliases;
  const entries = text.split(',');
  entries.forEach((raw, index) => {
    const entry = raw.trim();
    const parts = entry.split('=');
    if (parts.length !== 2) throw new Error(`${variable} entry ${index + 1} is not canonical=alias`);
    const [canonical, alias] = parts.map((p) => p.trim()) as [string, string];
    for (const name of [canonical, alias]) {
      if (!isTopicName(name))
        throw new Error(`${variable} entry ${index + 1}: "${name}" is not a topic name (${TOPIC_NAME_PATTERN.source})`);
    }
    const existing = aliases.get(canonical);
    if (existing !== undefined && existing !== alias)
      throw new Error(`${variable} maps ${canonical} twice (${existing}, ${alias})`);
    aliases.set(canonical, alias);
  });
  return aliases;
}

/** The name a topic is stored under: its alias, or itself. */
export function resolveTopic(topic: string, aliases: TopicAliases): string {
  return aliases.get(topic) ?? topic;
}

/**
 * A record's topic states as TOPIC_ALIASES reads them now. A topic stored under a canonical name that an
 * alias now maps was written before that alias was set (the consumer stores under the alias once there is
 * one), so it is read as the alias's, beside whatever the alias holds itself: the latest change wins, an
 * opt-out winning a tie. That is the order each topic's own evidence follows (suppression/topics.ts), so the
 * state is the one the alias would hold had it existed all along: a topic opt-out still follows its latest
 * change, wherever it was stored. A stored name that is itself some entry's alias is read as stored: it was
 * written under that alias (`a=b,b=c` stores `a`'s changes as `b`, and they stay `b`'s).
 */
export function topicsUnderAliases<S extends { readonly status: string; readonly changedAt: number }>(
  topics: Readonly<Record<string, S>> | undefined,
  aliases: TopicAliases,
): Record<string, S> {
  const out: Record<string, S> = {};
  if (topics === undefined) return out;
  for (const [stored, state] of Object.entries(topics)) {
    const name = topicReadAs(stored, aliases);
    const held = out[name];
    out[name] = held === undefined || laterChange(state, held) ? state : held;
  }
  return out;
}

/** The name a stored topic is read under now (topicsUnderAliases): its alias, unless it is itself one. */
export function topicReadAs(stored: string, aliases: TopicAliases): string {
  for (const alias of aliases.values()) if (alias === stored) return stored;
  return resolveTopic(stored, aliases);
}

/**
 * The names a topic's state may be stored under, as topicsUnderAliases reads them: the topic itself, and
 * every canonical name TOPIC_ALIASES maps to it (stored there before the alias was set). What a read of one
 * topic fetches.
 */
export function storedTopicNames(topic: string, aliases: TopicAliases): string[] {
  const aliasNames = new Set(aliases.values());
  const names = [topic];
  for (const [canonical, alias] of aliases)
    if (alias === topic && canonical !== topic && !aliasNames.has(canonical)) names.push(canonical);
  return names;
}

/** Whether `a` is a later change than `b`: later in time, or at the same time an opt-out. */
function laterChange(a: { status: string; changedAt: number }, b: { status: string; changedAt: number }): boolean {
  if (a.changedAt !== b.changedAt) return a.changedAt > b.changedAt;
  return a.status === 'unsubscribed' && b.status !== 'unsubscribed';
}

/** Builders for the canonical names; undefined when the provider's value cannot make a valid name. */
export const canonicalTopic = {
  sendgridGroup: (groupId: unknown): string | undefined => named('sendgrid:group:', scalar(groupId)),
  sesTopic: (contactList: unknown, topicName: unknown): string | undefined =>
    typeof contactList === 'string' && contactList !== '' ? named(`ses:${contactList}:`, scalar(topicName)) : undefined,
  postmarkStream: (stream: unknown): string | undefined => named('postmark:stream:', scalar(stream)),
  resendTopic: (topicId: unknown): string | undefined => named('resend:topic:', scalar(topicId)),
};

function scalar(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return String(value);
  return undefined;
}

function named(prefix: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const name = `${prefix}${value}`;
  return isTopicName(name) ? name : undefined;
}
