/** sqsJson: JSON that SQS accepts, U+FFFE and U+FFFF escaped, read back unchanged by JSON.parse. */
import { describe, expect, it } from 'vitest';
import { sqsJson } from '../../../lambdas/core/sqs-body.js';

describe('sqsJson', () => {
  it('escapes the two noncharacters SQS refuses, and reads back the same value', () => {
    const value = { email: 'a\uFFFEb\uFFFF@example.com', note: ['\uFFFF'] };
    const body = sqsJson(value);
    expect(body).toBe('{"email":"a\\ufffeb\\uffff@example.com","note":["\\uffff"]}');
    expect(JSON.parse(body)).toEqual(value);
  });

  it('leaves every other character as JSON.stringify writes it', () => {
    const value = { text: 'plain ascii, é, \uFFFD, \u{1F600}, \uE000' };
    expect(sqsJson(value)).toBe(JSON.stringify(value));
  });
});
