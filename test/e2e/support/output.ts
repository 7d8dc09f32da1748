/** What a pulumi command printed, as the user reads it. */

/**
 * The "Diagnostics:" section of a command's output: each resource's messages (trimmed, blank lines
 * left out) under its heading, such as `pulumi:pulumi:Stack (project-stack):`. Pulumi lists each
 * message there once (the lines above the section show them as they happen), resources in no fixed
 * order.
 */
export function diagnostics(output: string): Record<string, string[]> {
  const start = output.indexOf("\nDiagnostics:\n");
  if (start < 0) return {};
  const body = output.slice(start + "\nDiagnostics:\n".length);
  // The section ends at the next heading (Outputs:, Resources:), a line that starts in column one.
  const end = body.search(/^\S/m);
  const groups: Record<string, string[]> = {};
  let current: string[] = [];
  for (const line of (end < 0 ? body : body.slice(0, end)).split("\n")) {
    if (/^ {2}\S/.test(line)) {
      current = [];
      groups[line.trim()] = current;
    } else if (line.trim() !== "") current.push(line.trim());
  }
  return groups;
}

/**
 * `output` with each "Diagnostics:" section's resource groups in the order of their headings.
 * Pulumi's display walks its resources in map order there, so two groups come either way round;
 * each group's lines, and everything outside the sections, are left as printed.
 */
export function withDiagnosticsSorted(output: string): string {
  const marker = "\nDiagnostics:\n";
  let sorted = "";
  let rest = output;
  for (let start = rest.indexOf(marker); start >= 0; start = rest.indexOf(marker)) {
    const bodyStart = start + marker.length;
    // The section ends at the next heading (Outputs:, Resources:), a line that starts in column one.
    const bodyLength = rest.slice(bodyStart).search(/^\S/m);
    const bodyEnd = bodyLength < 0 ? rest.length : bodyStart + bodyLength;
    // A group is its heading (two spaces in) and every line up to the next heading.
    const groups = rest.slice(bodyStart, bodyEnd).split(/(?=^ {2}\S)/m);
    groups.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    sorted += rest.slice(0, bodyStart) + groups.join("");
    rest = rest.slice(bodyEnd);
  }
  return sorted + rest;
}

/**
 * The lines showing `message` other than Pulumi's own display of it as the error of the resource
 * `name` (on that resource's progress lines, and as `error: <message>` in the diagnostics). Empty
 * when the message reaches the user only as that resource's error.
 */
export function shownElsewhere(output: string, name: string, message: string): string[] {
  return output
    .split("\n")
    .filter((line) => line.includes(message))
    .filter(
      (line) =>
        line !== `    error: ${message}` &&
        !(line.includes(`directmail:`) && line.includes(` ${name} `) && line.endsWith(`error: ${message}`)),
    );
}

/** Runs a pulumi command; returns what it printed and whether it failed. */
export async function run(
  command: (onOutput: (text: string) => void) => Promise<unknown>,
): Promise<{ output: string; failed: boolean }> {
  let output = "";
  try {
    await command((text) => {
      output += text;
    });
    return { output, failed: false };
  } catch {
    return { output, failed: true };
  }
}
