/** The SendGrid signature headers: blanks around them, each refusal's exact message, the length bounds. */
import { describe, expect, it } from 'vitest';
import { AuthenticationError } from '../../../lambdas/core/errors.js';
import { parseSendgridPublicKey } from '../../../lambdas/core/providers/sendgrid/index.js';
import { verifySendgridSignature } from '../../../lambdas/core/providers/sendgrid/verify.js';
import { signSendgridBody } from '../../../lib/demo/sendgrid.js';
import { NOW_SECONDS, request } from '../support/provider.js';
import { CREDENTIALS, SIGNATURE_HEADER, TIMESTAMP_HEADER } from './support.js';

const KEYS = [parseSendgridPublicKey(CREDENTIALS.credential)];
const BODY = '[{"email":"a@example.com","event":"delivered","sg_event_id":"x","timestamp":1}]';
const SIGNED = signSendgridBody(BODY, NOW_SECONDS, CREDENTIALS.signingSecret);
const signature = SIGNED[SIGNATURE_HEADER]!;

function refused(headers: Record<string, string>, message: string) {
  let error: unknown;
  try {
    verifySendgridSignature(request(BODY, headers), KEYS);
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(AuthenticationError);
  expect(error).toMatchObject({ status: 401, code: 'authentication_failed', message });
}

describe('SendGrid signature headers', () => {
  it('verifies headers that arrive with blanks around them', () => {
    const verified = verifySendgridSignature(
      request(BODY, { [SIGNATURE_HEADER]: ` ${signature} `, [TIMESTAMP_HEADER]: ` ${NOW_SECONDS}\t` }),
      KEYS,
    );
    expect(verified).toEqual({ signedAtSeconds: Number(NOW_SECONDS) });
  });

  it('names the timestamp header when it is not a Unix timestamp', () => {
    refused(
      { [SIGNATURE_HEADER]: signature, [TIMESTAMP_HEADER]: '17e8' },
      'SendGrid timestamp header is not a Unix timestamp',
    );
  });

  it('names the signature when it is not base64', () => {
    refused({ [SIGNATURE_HEADER]: 'not base64!', [TIMESTAMP_HEADER]: NOW_SECONDS }, 'SendGrid signature is not base64');
  });

  it('a signature of 8 bytes (the DER minimum) is checked, one of 7 bytes refused by length', () => {
    refused(
      { [SIGNATURE_HEADER]: Buffer.alloc(8, 1).toString('base64'), [TIMESTAMP_HEADER]: NOW_SECONDS },
      'SendGrid signature does not verify',
    );
    refused(
      { [SIGNATURE_HEADER]: Buffer.alloc(7, 1).toString('base64'), [TIMESTAMP_HEADER]: NOW_SECONDS },
      'SendGrid signature has the wrong length',
    );
  });
});
