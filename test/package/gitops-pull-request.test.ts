/**
 * `scripts/pull-request.sh prepare` of the GitOps template (examples/gitops) against temporary git
 * repositories: the campaign folder it writes for the review is the merged tree's, byte for byte,
 * whatever attributes the pull request, the runner or the checkout carry; git's own files in the
 * folder, and attributes that would change a campaign file at the deploy's checkout, stop it. And
 * `scripts/code-changes.sh` counts git's own files in the folder as code. The workflow around these
 * scripts runs in test/e2e/gitops-attacks.test.ts.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileAsync, repoRoot } from "../support/package";

const CAMPAIGN = "apiVersion: directmail/v1\nkind: Campaign\nmetadata:\n  name: welcome\n";
const HIDDEN = "apiVersion: directmail/v1\nkind: Campaign\nmetadata:\n  name: hidden\n";

let tmp: string;
let main: string;
let cases = 0;
/** git's configuration for every command here: no user's or machine's settings. */
let gitEnv: NodeJS.ProcessEnv;

const git = (cwd: string, ...args: string[]) =>
  execFileAsync("git", args, { cwd, env: gitEnv }).then(({ stdout }) => stdout.trim());

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a template script in main's checkout, as the workflow does; its exit code and output. */
function script(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Outcome> {
  return execFileAsync("bash", args, { cwd: main, env: { ...gitEnv, ...env } }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

/**
 * A pull request: a clone of main with `edit` applied and committed (or the commit `commit` makes
 * of the clone), in a folder of its own.
 */
async function pullRequest(edit: (dir: string) => void, commit?: (dir: string) => Promise<void>) {
  cases += 1;
  const dir = path.join(tmp, `pull-request-${cases}`);
  await git(tmp, "clone", "--quiet", main, dir);
  edit(dir);
  if (commit) await commit(dir);
  else {
    await git(dir, "add", "-A");
    await git(dir, "commit", "--quiet", "-m", "change");
  }
  return dir;
}

/** Every file under main's campaign folder, with its bytes. */
function campaignFolder(): Record<string, string> {
  const folder = path.join(main, "campaigns");
  const files: Record<string, string> = {};
  for (const entry of fs.readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) {
      const file = path.join(entry.parentPath, entry.name);
      files[path.relative(folder, file)] = fs.readFileSync(file, "latin1");
    }
  }
  return files;
}

const prepare = (pr: string, env?: NodeJS.ProcessEnv) =>
  script(["scripts/pull-request.sh", "prepare", pr], env);

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-gitops-pull-request-"));
  const globalConfig = path.join(tmp, "gitconfig");
  fs.writeFileSync(globalConfig, "[user]\n\temail = marketing@example.com\n\tname = Marketing\n");
  gitEnv = {
    PATH: process.env.PATH,
    HOME: tmp,
    GIT_CONFIG_GLOBAL: globalConfig,
    GIT_CONFIG_NOSYSTEM: "1",
  };
  main = path.join(tmp, "main");
  fs.cpSync(path.join(repoRoot, "examples/gitops/scripts"), path.join(main, "scripts"), { recursive: true });
  fs.mkdirSync(path.join(main, "campaigns"));
  fs.writeFileSync(path.join(main, "campaigns/welcome.yaml"), CAMPAIGN);
  fs.writeFileSync(path.join(main, "campaigns/welcome.csv"), "customerId,firstName\nC-1,Ada\n");
  await git(main, "init", "--quiet", "--initial-branch=main");
  await git(main, "add", "-A");
  await git(main, "commit", "--quiet", "-m", "main");
});

afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe("scripts/pull-request.sh prepare", () => {
  it("refuses a .gitattributes in the campaign folder, which would hide a campaign from the review, and names it", async () => {
    const pr = await pullRequest((dir) => {
      fs.writeFileSync(path.join(dir, "campaigns/.gitattributes"), "hidden.yaml export-ignore\n");
      fs.writeFileSync(path.join(dir, "campaigns/hidden.yaml"), HIDDEN);
    });
    expect(await prepare(pr)).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "pull-request: the campaign folder may not hold git's own files (.git, .gitattributes, .gitmodules), control characters or names that are not plain paths under campaigns/:\n" +
        "  campaigns/.gitattributes\n" +
        "  They change how git stores or checks out the campaign files, so the review could read other files than the deploy. " +
        "Remove them from the pull request (git rm --cached -- PATH); attributes the repository needs belong in its .gitattributes, outside campaigns/.\n",
    });
    // After merge, it is code: the deploy waits for approval.
    expect(await script(["scripts/code-changes.sh", "main", "refs/directmail/pull-request"])).toEqual({
      code: 0,
      stdout: "campaigns/.gitattributes\n",
      stderr: "code-changes: the change alters 1 path besides the campaign files\n",
    });
  });

  it("refuses git's own names in any case and in any subfolder, and names a tree could hold but no checkout writes", async () => {
    const pr = await pullRequest(
      () => {},
      async (dir) => {
        // Trees written directly, as a hostile client can push them: git's checkout refuses these names.
        const write = (args: string[], input: string) =>
          execFileSync("git", args, { cwd: dir, env: gitEnv, input, encoding: "utf8" }).trim();
        const oid = write(["hash-object", "-w", "--stdin"], CAMPAIGN);
        const mktree = (entries: string) => write(["mktree"], entries);
        const sub = mktree(`100644 blob ${oid}\t.GitModules\n100644 blob ${oid}\tok.csv\n`);
        const gitDir = mktree(`100644 blob ${oid}\tconfig\n`);
        const campaigns = mktree(
          `100644 blob ${oid}\t..\n040000 tree ${gitDir}\t.Git\n040000 tree ${sub}\tsub\n` +
            `100644 blob ${oid}\twelcome.yaml\n`,
        );
        const scripts = await git(dir, "rev-parse", "HEAD:scripts");
        const root = mktree(`040000 tree ${campaigns}\tcampaigns\n040000 tree ${scripts}\tscripts\n`);
        const commit = await git(dir, "commit-tree", root, "-p", "HEAD", "-m", "hostile tree");
        await git(dir, "reset", "--quiet", "--soft", commit);
      },
    );
    const outcome = await prepare(pr);
    expect(outcome.code).toBe(1);
    expect(outcome.stderr.split("\n").slice(1, 4)).toEqual([
      "  campaigns/..",
      "  campaigns/.Git/config",
      "  campaigns/sub/.GitModules",
    ]);
    expect(campaignFolder()).toHaveProperty("welcome.yaml", CAMPAIGN);
  });

  it("refuses a file name with a control character", async () => {
    const pr = await pullRequest((dir) => {
      fs.writeFileSync(path.join(dir, "campaigns/two\nlines.csv"), "customerId\n");
    });
    const outcome = await prepare(pr);
    expect(outcome.code).toBe(1);
    expect(outcome.stderr.split("\n")[1]).toBe("  campaigns/two");
  });

  it("writes each campaign file as committed, whatever the tree's, the clone's and the runner's attributes say", async () => {
    // Attributes outside the campaign folder are code (the offline review, approval after merge),
    // and the review must still show the files the deploy reads: all of them, unexpanded.
    const pr = await pullRequest((dir) => {
      fs.writeFileSync(
        path.join(dir, ".gitattributes"),
        "campaigns/hidden.yaml export-ignore\ncampaigns/welcome.yaml export-subst\n",
      );
      fs.writeFileSync(path.join(dir, "campaigns/hidden.yaml"), HIDDEN);
      fs.appendFileSync(path.join(dir, "campaigns/welcome.yaml"), "# $Format:%n%H$\n");
    });
    // The runner's own attributes, in the clone and in the user's configuration, are ignored too.
    fs.writeFileSync(path.join(main, ".git/info/attributes"), "* export-ignore export-subst\n");
    const runnerAttributes = path.join(tmp, "runner-attributes");
    fs.writeFileSync(runnerAttributes, "* eol=crlf ident export-ignore\n");
    try {
      expect(
        await prepare(pr, {
          GIT_CONFIG_COUNT: "1",
          GIT_CONFIG_KEY_0: "core.attributesFile",
          GIT_CONFIG_VALUE_0: runnerAttributes,
        }),
      ).toMatchObject({ code: 0, stderr: "" });
    } finally {
      fs.rmSync(path.join(main, ".git/info/attributes"));
    }
    expect(campaignFolder()).toEqual({
      "hidden.yaml": HIDDEN,
      "welcome.csv": "customerId,firstName\nC-1,Ada\n",
      "welcome.yaml": `${CAMPAIGN}# $Format:%n%H$\n`,
    });
  });

  it("refuses attributes that would change a campaign file when the deploy checks it out, naming each", async () => {
    const pr = await pullRequest(
      (dir) => {
        fs.writeFileSync(
          path.join(dir, ".gitattributes"),
          "*.csv eol=crlf\n*.md eol=crlf\ncampaigns/welcome.yaml ident filter=lfs text=auto eol=lf\n" +
            "campaigns/*.csv working-tree-encoding=UTF-16LE\n",
        );
      },
      async (dir) => {
        // The campaign files stay as committed: only the attributes change.
        await git(dir, "add", ".gitattributes");
        await git(dir, "commit", "--quiet", "-m", "attributes");
      },
    );
    expect(await prepare(pr)).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "pull-request: attributes of the merged tree would change these campaign files when the deploy checks them out, so it would read other bytes than the review:\n" +
        "  campaigns/welcome.csv: working-tree-encoding=UTF-16LE\n" +
        "  campaigns/welcome.csv: eol=crlf\n" +
        "  campaigns/welcome.yaml: filter=lfs\n" +
        "  campaigns/welcome.yaml: ident\n" +
        "  Remove these attributes for campaigns/ from the .gitattributes files (filter, ident, working-tree-encoding, eol=crlf): campaign files are deployed as committed.\n",
    });
  });

  it("fails when the folder it wrote is not the merged tree's, naming the difference", async () => {
    const pr = await pullRequest((dir) => {
      fs.appendFileSync(path.join(dir, "campaigns/welcome.csv"), "C-2,Grace\n");
    });
    // A git whose blobs come out altered on the way to the disk: the check after writing sees it.
    const shim = path.join(tmp, "altering-git");
    fs.mkdirSync(shim, { recursive: true });
    const realGit = (await execFileAsync("bash", ["-c", "command -v git"])).stdout.trim();
    fs.writeFileSync(
      path.join(shim, "git"),
      `#!/usr/bin/env bash\nif [ "$1" = cat-file ]; then "${realGit}" "$@" | tr a-z A-Z; exit; fi\nexec "${realGit}" "$@"\n`,
      { mode: 0o755 },
    );
    const outcome = await prepare(pr, { PATH: `${shim}:${process.env.PATH}` });
    const blob = (text: string) =>
      execFileAsync("bash", ["-c", `printf %s "$0" | git hash-object --stdin`, text]).then(({ stdout }) =>
        stdout.trim(),
      );
    const csv = "customerId,firstName\nC-1,Ada\nC-2,Grace\n";
    expect(outcome).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "pull-request: campaigns/ as written is not the merged tree's campaign folder (blob id, path; - the tree, + the folder):\n" +
        `  - ${await blob(csv)} campaigns/welcome.csv\n` +
        `  - ${await blob(CAMPAIGN)} campaigns/welcome.yaml\n` +
        `  + ${await blob(csv.toUpperCase())} campaigns/welcome.csv\n` +
        `  + ${await blob(CAMPAIGN.toUpperCase())} campaigns/welcome.yaml\n`,
    });
  });

  it("still refuses a symbolic link in the campaign folder", async () => {
    const pr = await pullRequest((dir) => {
      fs.symlinkSync("/etc/passwd", path.join(dir, "campaigns/leak.csv"));
    });
    expect(await prepare(pr)).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "pull-request: the campaign folder may hold regular files only; these are symbolic links or submodules:\n" +
        "  campaigns/leak.csv\n",
    });
  });
});
