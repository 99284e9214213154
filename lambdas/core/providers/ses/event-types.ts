/** SES event types Ratchet acknowledges without acting on, and where each keeps its own object. */

/** Event types we acknowledge without acting on, and why. */
export const IGNORED: Readonly<Record<string, string>> = {
  Send: 'SES accepted the message; not a delivery outcome',
  Reject: 'SES refused to send the message (virus); not a recipient outcome',
  Open: 'engagement event',
  Click: 'engagement event',
  DeliveryDelay: 'SES is still retrying; only the final outcome counts',
  'Rendering Failure': 'template rendering failed before sending; not a recipient outcome',
  AmazonSnsSubscriptionSucceeded: 'SES confirmation that the SNS topic was attached',
};

/** Where each event type keeps its object (`Rendering Failure` → `failure`). */
export const EVENT_OBJECT_KEY: Readonly<Record<string, string>> = {
  Send: 'send',
  Reject: 'reject',
  Open: 'open',
  Click: 'click',
  DeliveryDelay: 'deliveryDelay',
  'Rendering Failure': 'failure',
};
