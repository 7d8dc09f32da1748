/**
 * The recipients the service dropped at upload, as a stack's state records them in an
 * OrderRecipients' outputs: the review and the report show them.
 */
import { reasonCounts, sumReasons } from "../../provider/api/reasons";

export interface DropReport {
  accepted: number;
  dropped: number;
  /** Dropped recipients by reason, most frequent first. */
  reasons: { reason: string; count: number }[];
}

/** The drop report from an OrderRecipients' outputs in the state. */
export function dropReportOf(outputs: Record<string, unknown>): DropReport | undefined {
  const { acceptedCount, droppedCount, dropReasons } = outputs;
  if (typeof acceptedCount !== "number" || typeof droppedCount !== "number") return undefined;
  // Redacted again: a state written by an earlier version holds the values the service quoted.
  const reasons = sumReasons(reasonCounts(dropReasons as Record<string, unknown> | undefined));
  return { accepted: acceptedCount, dropped: droppedCount, reasons };
}
