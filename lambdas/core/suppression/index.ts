/** The suppression ratchet, pure core: no I/O, no clock. The DynamoDB adapter and the CLI use this. */
export { applyEvent } from './apply.js';
export { changeTopicManually, reactivate, suppressManually, type ManualAction } from './manual.js';
export { importEntry, IMPORT_PROVIDER, type ImportedEntry } from './imported.js';
export { mergeRecords } from './merge.js';
export { DEFAULT_RATCHET_POLICY, policyFromSettings, SOFT_BOUNCE_VARIABLES, type RatchetPolicy } from './policy.js';
export {
  emptyRecord,
  isSuppressedRecord,
  SUPPRESSION_REASONS,
  type ApplyResult,
  type AuditEntry,
  type Effect,
  type Evidence,
  type EvidenceKind,
  type SuppressionReason,
  type SuppressionRecord,
  type TopicState,
} from './record.js';
export { topicOrder } from './topics.js';
export { ANSWER_ATTRIBUTES, refusalReason, type AnswerItem, type RefusalReason, type SendQuestion } from './answer.js';
