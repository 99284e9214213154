/**
 * One SigV4 signer per client and auth scheme, in place of the SDK's one per request.
 *
 * Why: given no signer, the SDK's SigV4 config (@aws-sdk/core, resolveAwsSdkSigV4Config) builds a new
 * SignatureV4 for every request, copying the whole resolved client config into its parameters. For
 * DynamoDB and SQS the auth scheme is the same on every call, so that work is thrown away each time:
 * on the two writes every synced change makes, about 8 % of the main thread's CPU a change
 * (docs/decisions.md), and on Lambda CPU is billed time.
 *
 * What stays the SDK's: the signer is still the one it builds, from the same config, on the first
 * request of each auth scheme. SignatureV4 keeps no per-request state and asks the client's
 * credential provider on every signature, so rotated credentials (Lambda's role session) are used as
 * soon as the provider returns them; the signing date, with clock-skew correction, is passed per request.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

type SignerProvider = DynamoDBClient['config']['signer'];
type AuthScheme = Parameters<SignerProvider>[0];
type Signer = Awaited<ReturnType<SignerProvider>>;

/** Makes `client` build its signer once per auth scheme; returns the same client. */
export function signOnce<C extends { config: { signer: SignerProvider } }>(client: C): C {
  const build = client.config.signer;
  const signers = new Map<string, Promise<Signer>>();
  // The SDK's signing step reads this off the client's resolved config on every request (@aws-sdk/core
  // AwsSdkSigV4Signer). That is the SDK's inside, not its contract: sign-once.test.ts fails if a release
  // stops reading it there (the signer would be built per request again).
  client.config.signer = (authScheme?: AuthScheme) => {
    const key = JSON.stringify(authScheme ?? null);
    let signer = signers.get(key);
    if (signer === undefined) {
      signer = build(authScheme);
      signers.set(key, signer);
      // A signer that failed to build (no region yet) is built again on the next request.
      signer.catch(() => signers.delete(key));
    }
    return signer;
  };
  return client;
}
