/**
 * The campaign files of a change: at the head (the working tree) and at the base (a git ref, its
 * tree extracted with `git archive` into a temporary folder; nothing in the repository changes).
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import {
  type LoadedCampaign,
  type LoadOptions,
  type LoadResult,
  loadCampaignsDir,
} from "../../provider/campaign/loader";
import { campaignFolderRoot, type FileRoot } from "../../provider/file-root";

/** The folder `directmail review` reads when neither --campaigns nor the stack's `campaignsDir` names one. */
export const DEFAULT_CAMPAIGNS_DIR = "campaigns";

export interface CampaignFiles {
  /** The folder of the project at this side: the working tree's, or the base's extracted copy. */
  root: string;
  /** The campaigns folder, relative to `root`. */
  dir: string;
  /** The folder its files stay inside: the campaigns folder, without following links at the base. */
  fileRoot: FileRoot;
  loaded: LoadResult;
}

/** A side's campaigns by their name (`metadata.name`); none for a side not read. */
export function campaignsByName(side: CampaignFiles | undefined): Map<string, LoadedCampaign> {
  return new Map((side?.loaded.campaigns ?? []).map((c) => [c.document.metadata.name, c]));
}

export interface BaseTree {
  /** The project folder as it is at the base ref (it may not exist there). */
  root: string;
  /** The commit the ref names. */
  commit: string;
  remove(): Promise<void>;
}

/**
 * Loads and checks the campaign files under `root/dir`; paths in problems are relative to `root`.
 * At the base (`base` given), a link is never followed: git stores links as links, and `tar`
 * writes them so (a link to /etc/passwd is a link in the extracted tree); one is a problem. And the
 * base's recipients are read only to be compared with the head's (LoadOptions.recipientChecks
 * false: nothing shows the base's drops or merge fields), each seen by `base.recipientsSeen`.
 */
export async function loadSide(
  root: string,
  dir: string,
  base?: { recipientsSeen?: LoadOptions["recipientsSeen"] },
): Promise<CampaignFiles | undefined> {
  const followLinks = base === undefined;
  const folder = path.resolve(root, dir);
  // lstat at the base: a campaign folder that is a link is the loader's problem, not a missing folder.
  const exists = await (followLinks ? fs.stat(folder) : fs.lstat(folder)).then(
    (s) => s.isDirectory() || s.isSymbolicLink(),
    () => false,
  );
  if (!exists) return undefined;
  const fileRoot = campaignFolderRoot(folder, dir, followLinks);
  return {
    root,
    dir,
    fileRoot,
    loaded: await loadCampaignsDir(folder, {
      relativeTo: root,
      root: fileRoot,
      ...(base ? { recipientChecks: false } : {}),
      ...(base?.recipientsSeen ? { recipientsSeen: base.recipientsSeen } : {}),
    }),
  };
}

/**
 * The project folder `root` as it is at `ref`: the tree of that commit under the project's place in
 * the repository, written to a temporary folder. Read-only for the repository.
 */
export async function extractBase(root: string, ref: string): Promise<BaseTree> {
  const commit = (
    await run("git", ["rev-parse", "--verify", "--quiet", "--end-of-options", `${ref}^{commit}`], root).catch(
      () => {
        throw new Error(
          `--base ${ref}: no such commit in the repository of ${root}; fetch it first ` +
            "(in GitHub Actions: actions/checkout with fetch-depth: 0, or git fetch origin <branch>)",
        );
      },
    )
  ).trim();
  const temp = await fs.mkdtemp(path.join(os.tmpdir(), "directmail-review-base-"));
  const remove = () => fs.rm(temp, { recursive: true, force: true });
  try {
    const base = path.join(temp, "project");
    await fs.mkdir(base);
    // Listing first: `git archive` of a path the commit does not have fails, and a project that is
    // new in this change has no base.
    const listed = await run("git", ["ls-tree", "--name-only", commit, "--", "."], root);
    if (listed.trim() !== "") await pipeArchive(commit, root, base);
    return { root: base, commit, remove };
  } catch (error) {
    await remove();
    throw new Error(`cannot read the files of ${ref}: ${(error as Error).message}`);
  }
}

/** `git archive <commit>` run in the project folder (its paths are relative to it), unpacked by tar. */
function pipeArchive(commit: string, cwd: string, into: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const archive = spawn("git", ["archive", "--format=tar", commit], {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const tar = spawn("tar", ["-x", "-f", "-", "-C", into], { stdio: ["pipe", "ignore", "pipe"] });
    let errors = "";
    archive.stderr.on("data", (d) => {
      errors += d;
    });
    tar.stderr.on("data", (d) => {
      errors += d;
    });
    archive.stdout.pipe(tar.stdin);
    let pending = 2;
    let failed = false;
    const done = (what: string) => (code: number | null, signal: NodeJS.Signals | null) => {
      if (code !== 0 && !failed) {
        failed = true;
        reject(new Error(`${what} failed (${signal ?? `exit code ${code}`}): ${errors.trim()}`));
      }
      if (--pending === 0 && !failed) resolve();
    };
    archive.on("error", reject);
    tar.on("error", reject);
    archive.on("close", done("git archive"));
    tar.on("close", done("tar"));
  });
}

/** Runs a command; its stdout, or an error with its stderr. */
export function run(command: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve(stdout);
      else reject(new Error(stderr.trim() || `${command} ${args[0]} exited with code ${code}`));
    });
  });
}
