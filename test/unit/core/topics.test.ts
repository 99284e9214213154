/** core/topics.ts on its own: the alias parser's messages and repeats, and the canonical-name builders' refusals. */
import { describe, expect, it } from 'vitest';
import { canonicalTopic, parseTopicAliases, TOPIC_NAME_PATTERN } from '../../../lambdas/core/topics.js';

describe('parseTopicAliases', () => {
  it('names a bad entry by its 1-based position', () => {
    expect(() => parseTopicAliases('a=b, c=bad name')).toThrow(
      new Error(`TOPIC_ALIASES entry 2: "bad name" is not a topic name (${TOPIC_NAME_PATTERN.source})`),
    );
    expect(() => parseTopicAliases('=b', 'CTX')).toThrow(
      new Error(`CTX entry 1: "" is not a topic name (${TOPIC_NAME_PATTERN.source})`),
    );
    expect(() => parseTopicAliases('a=b,c')).toThrow(new Error('TOPIC_ALIASES entry 2 is not canonical=alias'));
  });

  it('accepts the same mapping twice, refuses one canonical name with two aliases', () => {
    expect([...parseTopicAliases('a=b, a = b')]).toEqual([['a', 'b']]);
    expect(() => parseTopicAliases('a=b,a=c')).toThrow(new Error('TOPIC_ALIASES maps a twice (b, c)'));
  });
});

describe('canonicalTopic', () => {
  it('builds an SES name only from a non-empty string contact list', () => {
    expect(canonicalTopic.sesTopic('list', 'weekly')).toBe('ses:list:weekly');
    expect(canonicalTopic.sesTopic('', 'weekly')).toBeUndefined();
    expect(canonicalTopic.sesTopic(7, 'weekly')).toBeUndefined();
    expect(canonicalTopic.sesTopic(undefined, 'weekly')).toBeUndefined();
    expect(canonicalTopic.sesTopic('list', '')).toBeUndefined();
  });

  it('takes a whole, non-negative number as an id, zero included', () => {
    expect(canonicalTopic.sendgridGroup(0)).toBe('sendgrid:group:0');
    expect(canonicalTopic.sendgridGroup(4242)).toBe('sendgrid:group:4242');
    expect(canonicalTopic.sendgridGroup('4242')).toBe('sendgrid:group:4242');
    for (const refused of [-1, 1.5, Number.NaN, 2 ** 53, true, null, {}])
      expect(canonicalTopic.sendgridGroup(refused)).toBeUndefined();
  });

  it('refuses a value that cannot make a valid name', () => {
    expect(canonicalTopic.postmarkStream('broadcast')).toBe('postmark:stream:broadcast');
    expect(canonicalTopic.postmarkStream('two words')).toBeUndefined();
    expect(canonicalTopic.resendTopic('x'.repeat(200))).toBeUndefined();
  });
});
