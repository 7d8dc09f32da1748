/**
 * The recipient list: the one face through which `resources/`, `campaign/` and `cli/` read a list
 * of recipients (or records), key it, survey it and decode what the state keeps of it. What is
 * behind it (docs/architecture.md#the-recipient-list):
 *
 * - `read/`: the rows of a source (inline, CSV, JSON array, JSON Lines) in batches, the CSV header
 *   check and line picking, where a JSON array's rows and keys were written;
 * - `identity/`: each recipient's key and content digest, a set's digest, the key table and the
 *   index codec the state keeps;
 * - the fields a recipient declares and how a file's columns map to them (`declared.ts`,
 *   `columns.ts`), the list and its reads (`list.ts`, over `survey.ts`: recipientList), the plan
 *   of a sync (`plan.ts`), the wire form (`wire.ts`), the drops the service is predicted to make
 *   (`predicted-drops.ts`).
 */
export * from "./columns";
export * from "./declared";
export * from "./identity/digest";
export * from "./identity/index-codec";
export { columnKey, contentKey, hashKey } from "./identity/keys";
export * from "./identity/table";
export * from "./key-values";
export { type RecipientList, type RecipientSurvey, type RowFields, recipientList } from "./list";
export * from "./plan";
export * from "./predicted-drops";
export { csvRecordBatches, jsonRowBatches } from "./read/batches";
export { otherDelimiter } from "./read/csv-header";
export { recordsAtLines } from "./read/csv-lines";
export { jsonPositions, type Position, writtenKeys } from "./read/json-positions";
export {
  fileSignature,
  formatOf,
  type OpenedList,
  openList,
  type RecipientFormat,
  type RecipientSource,
  type RowProblem,
} from "./read/source";
export {
  describeProblems,
  type LoadedRecipient,
  type LoadedRecipients,
  type RecipientProblem,
  type RecipientSourceOptions,
  type SurveyedRecipient,
} from "./survey";
export * from "./wire";
