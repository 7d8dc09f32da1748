import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

/** A temporary folder of campaign files; `write` returns the absolute path. */
export function tempDir(prefix: string): {
  dir: string;
  write: (name: string, text: string) => string;
  remove: () => void;
} {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return {
    dir,
    write(name, text) {
      const file = path.join(dir, name);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, text);
      return file;
    },
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/** A valid campaign with inline recipients, named `name`. */
export function inlineCampaign(name: string): string {
  return [
    "apiVersion: directmail/v1",
    "kind: Campaign",
    "metadata:",
    `  name: ${name}`,
    "spec:",
    "  order:",
    "    templateId: 10002",
    "  recipients:",
    "    inline:",
    "      - firstName: Hedy",
    "        address1: 12 Frequency Way",
    "        city: Boulder",
    "        state: CO",
    '        zipCode: "80302"',
    "",
  ].join("\n");
}

/**
 * The same campaign with its recipients read from `file` (relative to the campaign file); `keyColumn`
 * names the CSV column that identifies a recipient.
 */
export function fileCampaign(name: string, file: string, keyColumn?: string): string {
  const recipients = `    file: ${file}\n${keyColumn ? `    keyColumn: ${keyColumn}\n` : ""}`;
  return inlineCampaign(name).replace(/ {4}inline:[\s\S]*$/, recipients);
}

export const GOOD_CSV =
  "customerId,firstName,lastName,address1,city,state,zipCode\n" +
  "c1,Ada,Lovelace,12 Analytical St,London,KY,40741\n" +
  "c2,Grace,Hopper,1 Compiler Way,Arlington,VA,22202\n";
