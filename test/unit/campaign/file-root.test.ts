/**
 * Only the campaign folder's own files (provider/file-root.ts): every way a campaign file can name
 * a file outside its folder is one problem at the `file:` value, naming the path as written and the
 * rule, and nothing is read from that file or quoted from it.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { formatProblems, loadCampaignsDir } from "../../../provider/campaign/loader";
import { campaignFolderRoot, projectFileRoot, resolveInside } from "../../../provider/file-root";
import { shown } from "../../../provider/text";
import { fileCampaign, GOOD_CSV, tempDir } from "./fixtures";

const tmp = tempDir("directmail-file-root-");
afterAll(tmp.remove);

/** What the outside file holds: no problem may quote it. */
const SECRET =
  "customerId,firstName,lastName,address1,city,state,zipCode\nSECRET-1,Eve,Spy,1 Hidden Rd,Nowhere,KS,66002\n";
const outsideCsv = tmp.write("outside/secret.csv", SECRET);

/** A campaign folder `name` holding one campaign whose recipients file is `file` (as YAML text). */
function folderNaming(name: string, file: string): string {
  const dir = path.join(tmp.dir, name, "campaigns");
  fs.mkdirSync(path.join(dir, "lists"), { recursive: true });
  fs.writeFileSync(path.join(dir, "lists", "people.csv"), GOOD_CSV);
  fs.writeFileSync(path.join(dir, "spring.yaml"), fileCampaign("spring", file, "customerId"));
  return dir;
}

/** The folder's problems as the preview prints them, from the folder's project (its parent). */
async function problemsOf(dir: string): Promise<string> {
  const project = path.dirname(dir);
  const { problems } = await loadCampaignsDir(dir, { relativeTo: project });
  const text = formatProblems(problems, project);
  expect(text).not.toContain("SECRET");
  expect(text).not.toContain("Eve");
  return text;
}

const refusal = (written: string) =>
  `campaigns/spring.yaml:9:11: spec.recipients.file: ${written} is outside the campaign folder campaigns/ (after following links); name a file inside it`;

describe("a recipients file outside the campaign folder", () => {
  it("absolute, ../, Windows-style and /proc/self/environ: refused on the path alone", async () => {
    const forms: [string, string][] = [
      [outsideCsv, `"${shown(outsideCsv)}"`],
      ["../../outside/secret.csv", '"../../outside/secret.csv"'],
      ["../lists/people.csv", '"../lists/people.csv"'],
      ["/proc/self/environ", '"/proc/self/environ"'],
      ["'..\\..\\outside\\secret.csv'", '"..\\..\\outside\\secret.csv"'],
      ["'C:\\Windows\\win.csv'", '"C:\\Windows\\win.csv"'],
      ["'\\\\server\\share\\people.csv'", '"\\\\server\\share\\people.csv"'],
    ];
    for (const [index, [file, shown]] of forms.entries()) {
      const dir = folderNaming(`plain-${index}`, file);
      expect(await problemsOf(dir)).toBe(refusal(shown));
    }
  });

  it("a link, a linked folder on the way, and a chain of links: refused once links are followed", async () => {
    const link = folderNaming("link", "lists/linked.csv");
    fs.symlinkSync(outsideCsv, path.join(link, "lists", "linked.csv"));
    expect(await problemsOf(link)).toBe(refusal('"lists/linked.csv"'));

    const folder = folderNaming("folder", "away/secret.csv");
    fs.symlinkSync(path.dirname(outsideCsv), path.join(folder, "away"));
    expect(await problemsOf(folder)).toBe(refusal('"away/secret.csv"'));

    // Each link of the chain stays inside; the last one leaves.
    const chain = folderNaming("chain", "lists/one.csv");
    fs.symlinkSync("two.csv", path.join(chain, "lists", "one.csv"));
    fs.symlinkSync("three.csv", path.join(chain, "lists", "two.csv"));
    fs.symlinkSync(outsideCsv, path.join(chain, "lists", "three.csv"));
    expect(await problemsOf(chain)).toBe(refusal('"lists/one.csv"'));

    // A link that stays inside the folder is followed.
    const inside = folderNaming("inside", "lists/alias.csv");
    fs.symlinkSync("people.csv", path.join(inside, "lists", "alias.csv"));
    expect((await loadCampaignsDir(inside)).problems).toEqual([]);
  });

  it("a path with a NUL character: one problem, the character escaped", async () => {
    const dir = folderNaming("nul", '"lists/people.csv\\0../../x"');
    expect(await problemsOf(dir)).toBe(
      'campaigns/spring.yaml:9:11: spec.recipients.file: "lists/people.csv\\u0000../../x" holds a NUL character, which no file name has; name a file inside the campaign folder campaigns/',
    );
  });

  it("a campaign file that is a link to outside the folder is not read", async () => {
    const dir = folderNaming("campaign-link", "lists/people.csv");
    const elsewhere = tmp.write("outside/evil.yaml", fileCampaign("evil", "../../outside/secret.csv"));
    fs.symlinkSync(elsewhere, path.join(dir, "evil.yaml"));
    const { problems, campaigns } = await loadCampaignsDir(dir, { relativeTo: path.dirname(dir) });
    expect(campaigns.map((c) => c.document.metadata.name)).toEqual(["spring"]);
    expect(formatProblems(problems, path.dirname(dir))).toBe(
      'campaigns/evil.yaml:1:1: "evil.yaml" is outside the campaign folder campaigns/ (after following links); name a file inside it',
    );
  });

  it("a conversions file: the same rule, at its `file:` value", async () => {
    const dir = folderNaming("conversions", "lists/people.csv");
    fs.appendFileSync(
      path.join(dir, "spring.yaml"),
      "---\napiVersion: directmail/v1\nkind: Conversions\nmetadata:\n  name: sales\nspec:\n  file: ../../outside/secret.csv\n",
    );
    expect(await problemsOf(dir)).toBe(
      'campaigns/spring.yaml:17:9: spec.file: "../../outside/secret.csv" is outside the campaign folder campaigns/ (after following links); name a file inside it',
    );
  });
});

describe("where no link is followed (a review's base tree)", () => {
  it("a link is refused even when it stays inside, and so is a campaign folder that is a link", async () => {
    const dir = folderNaming("base", "lists/alias.csv");
    fs.symlinkSync("people.csv", path.join(dir, "lists", "alias.csv"));
    const project = path.dirname(dir);
    const root = campaignFolderRoot(dir, "campaigns", false);
    const { problems } = await loadCampaignsDir(dir, { relativeTo: project, root });
    expect(formatProblems(problems, project)).toBe(
      'campaigns/spring.yaml:9:11: spec.recipients.file: "lists/alias.csv" is a link, and no link is followed in the campaign folder campaigns/ of the base tree; name a file inside it',
    );
    expect(problems[0]?.outsideRoot).toBe(true);

    const linked = path.join(project, "linked");
    fs.symlinkSync(dir, linked);
    const folderLink = await loadCampaignsDir(linked, {
      relativeTo: project,
      root: campaignFolderRoot(linked, "linked", false),
    });
    expect(formatProblems(folderLink.problems, project)).toBe(
      'linked:1:1: "." is a link, and no link is followed in the campaign folder linked/ of the base tree; name a file inside it',
    );
  });
});

describe("resolveInside", () => {
  it("takes time linear in the path: 200,000 `../` are refused, a 1 MB path inside is judged, at once", async () => {
    const root = projectFileRoot(tmp.dir);
    // CPU time, which a busy machine does not stretch as it stretches the wall clock.
    const started = process.cpuUsage();
    await expect(resolveInside(root, "../".repeat(200_000), tmp.dir)).rejects.toThrow(/is outside/);
    const long = "a/".repeat(500_000);
    // Too long for the system to follow: returned as it is, for its reader to report.
    expect(await resolveInside(root, long, tmp.dir)).toBe(path.resolve(tmp.dir, long));
    const { user, system } = process.cpuUsage(started);
    expect((user + system) / 1000).toBeLessThan(2_000);
  });

  it("returns the path of a file inside, a missing one too (its reader says it is not found)", async () => {
    const root = projectFileRoot(tmp.dir);
    expect(await resolveInside(root, "outside/secret.csv", tmp.dir)).toBe(outsideCsv);
    expect(await resolveInside(root, "outside/gone.csv", tmp.dir)).toBe(
      path.join(tmp.dir, "outside/gone.csv"),
    );
  });
});
