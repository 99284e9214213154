/** `ratchet/client`: what sending code imports. */
export { issueUnsubscribeToken, unsubscribeHeaders, unsubscribeUrl, LIST_UNSUBSCRIBE_POST } from './unsubscribe.js';
export type { UnsubscribeLinkOptions, UnsubscribeUrlOptions } from './unsubscribe.js';
