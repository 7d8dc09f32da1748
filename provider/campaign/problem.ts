/** A problem found in a campaign file, a recipients file or a campaign folder, and what the files share. */
import * as path from "node:path";

export interface CampaignProblem {
  /** The file the problem is in: a campaign file, a recipients file or a campaign folder. */
  file: string;
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
  message: string;
  /** Set when a file was refused as outside its root (file-root.ts): nothing was read from it. */
  outsideRoot?: true;
  /** A warning: worth reading, and no reason to refuse the files (a row the service will drop). */
  warning?: true;
  /**
   * The predicted drops exceed the campaign's maxDroppedPercent: a problem of the recipients as
   * the service will judge them, not of the files' format (a review shows it under its campaign).
   */
  dropLimit?: true;
}

export type Position = { line: number; column: number };

/** A path into a document's value: keys and list indexes. */
export type Path = readonly PropertyKey[];

/** Why a file could not be read, `what` naming it: `recipients file "x.csv" not found`. */
export function fileError(error: unknown, what: string): string {
  const code = (error as { code?: unknown }).code;
  if (code === "ENOENT") return `${what} not found`;
  if (code === "EISDIR") return `${what} is a folder, not a file`;
  if (code === "EACCES") return `${what} cannot be read (permission denied)`;
  return `${what} cannot be read: ${(error as Error).message}`;
}

/** Relative to `base` (default the working directory) when that is shorter. */
export function displayPath(file: string, base: string = process.cwd()): string {
  const relative = path.relative(base, file);
  return relative !== "" && relative.length < file.length ? relative : file;
}
