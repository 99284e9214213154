/** The suppression ratchet, pure core: no I/O, no clock. The DynamoDB adapter and the CLI use this. */

export { ANSWER_ATTRIBUTES, type AnswerItem, type RefusalReason, refusalReason, type SendQuestion } from './answer.js';
export { applyEvent } from './apply.js';
export {
  importRecord,
  type RecordImportResult,
  type RecordImportSkip,
  readExportedRecord,
} from './import-record.js';
export { IMPORT_PROVIDER, type ImportedEntry, importEntry } from './imported.js';
export { changeTopicManually, type ManualAction, reactivate, suppressManually } from './manual.js';
export { mergeRecords } from './merge.js';
export { DEFAULT_RATCHET_POLICY, policyFromSettings, type RatchetPolicy, SOFT_BOUNCE_VARIABLES } from './policy.js';
export {
  type ApplyResult,
  type AuditEntry,
  type Effect,
  type Evidence,
  type EvidenceKind,
  emptyRecord,
  isSuppressedRecord,
  SUPPRESSION_REASONS,
  type SuppressionReason,
  type SuppressionRecord,
  type TopicState,
} from './record.js';
export { topicOrder } from './topics.js';
