import * as path from "node:path";

/** A path for the user: relative to the working directory when inside it, else absolute. */
export function shownPath(file: string): string {
  const relative = path.relative(process.cwd(), file);
  if (relative === "") return ".";
  return relative.startsWith("..") || path.isAbsolute(relative) ? file : relative;
}
