/**
 * Only the project's own files: every file a campaign names, and every campaign file a folder
 * loads, resolves inside its root once links are followed. The root is chosen by the stack's owner
 * (the campaign folder of the stack's configuration or code, or the Pulumi project folder), never
 * by a campaign file, which a pull request can change. One rule, one wording, for every reader:
 * the campaign loader (`directmail validate`, `pulumi preview`, `directmail review`) and the
 * provider's own reading of a file.
 *
 * What it cannot promise: a link that changes between this check and the read that follows it
 * (someone who can write the folder while a deployment runs) is not seen.
 */
import * as fs from "node:fs/promises";
import * as path from "node:path";
import { shown } from "./text";

/** The folder a file must stay inside, as the stack's owner chose it. */
export interface FileRoot {
  /** Absolute path of the folder. */
  dir: string;
  /** What the folder is called in messages: `the campaign folder campaigns/`. */
  name: string;
  /** false: no link at all is followed under `dir` (a review's base tree, written from git). */
  followLinks?: boolean;
}

/** A named file refused by the rule; `message` names the path as written and the rule. */
export class OutsideRootError extends Error {
  override readonly name = "OutsideRootError";
}

/** The Pulumi project folder as a root: for a `Campaign` or `OrderRecipients` declared in code. */
export function projectFileRoot(dir: string): FileRoot {
  return { dir, name: `the Pulumi project folder ${dir}/` };
}

/**
 * The root a resource's `fileRoot` input names: a folder relative to the project folder `project`
 * (or absolute), as a CampaignFolder records its own folder; the project folder when none. The
 * input is the program's, never a campaign file's (the campaign format has no such field).
 */
export function chosenRoot(fileRoot: string | undefined, project: string): FileRoot {
  if (fileRoot === undefined) return projectFileRoot(project);
  return campaignFolderRoot(path.resolve(project, fileRoot), fileRoot);
}

/**
 * A root folder as a resource's `fileRoot` input records it: relative to the project folder, so that
 * the state reads the same on every machine and checkout folder (absolute only where no relative
 * path leads there, another drive); undefined for the project folder itself, the default.
 */
export function recordedRoot(dir: string, project: string): string | undefined {
  const relative = path.relative(project, dir);
  return relative === "" ? undefined : relative;
}

/** A campaign folder as a root; `shownAs` is the folder as messages show it. */
export function campaignFolderRoot(dir: string, shownAs: string, followLinks = true): FileRoot {
  const name = `the campaign folder ${shownAs}${shownAs.endsWith("/") ? "" : "/"}`;
  return { dir, name: followLinks ? name : `${name} of the base tree`, followLinks };
}

/**
 * The absolute path of `named` (relative to `from`, or absolute) when it is inside `root` after
 * links are followed; else an OutsideRootError, before anything is read from it. A path that does
 * not exist is returned as it is: its reader reports it as not found. A Windows-style path (a
 * drive letter, `\\server`, `..\`) is judged as Windows would read it, so it is never inside.
 * Time linear in the path's length: one `realpath` (the kernel limits a chain of links).
 */
export async function resolveInside(root: FileRoot, named: string, from: string): Promise<string> {
  if (named.includes("\0"))
    throw refusal(named, `holds a NUL character, which no file name has; name a file inside ${root.name}`);
  const absolute = path.resolve(from, named);
  const slashed = named.replace(/\\/g, "/");
  const windowsForm = /^[a-z]:/i.test(slashed) ? undefined : path.resolve(from, slashed);
  const realRoot = await fs.realpath(root.dir).catch(() => path.resolve(root.dir));
  const lexicallyInside = (file: string) => isWithin(root.dir, file) || isWithin(realRoot, file);
  // Judged on the path alone first: /proc/self/environ or ../../etc/passwd is never touched.
  if (windowsForm === undefined || !lexicallyInside(windowsForm) || !lexicallyInside(absolute))
    throw outside(root, named);
  if (root.followLinks === false) await refuseLinks(root, named, absolute);
  const real = await fs.realpath(absolute).catch(() => undefined);
  if (real !== undefined && !isWithin(realRoot, real)) throw outside(root, named);
  return absolute;
}

/** Whether `file` is `dir` or under it (paths compared as written). */
function isWithin(dir: string, file: string): boolean {
  const relative = path.relative(dir, file);
  return (
    relative === "" ||
    (!path.isAbsolute(relative) && relative !== ".." && !relative.startsWith(`..${path.sep}`))
  );
}

/** Every part of `absolute` under the root (the root itself too) that is a link, refused. */
async function refuseLinks(root: FileRoot, named: string, absolute: string): Promise<void> {
  const parts = path.relative(root.dir, absolute).split(path.sep).filter(Boolean);
  for (let depth = 0; depth <= parts.length; depth++) {
    const part = path.join(root.dir, ...parts.slice(0, depth));
    const stat = await fs.lstat(part).catch(() => undefined);
    if (stat === undefined) return;
    if (stat.isSymbolicLink())
      throw refusal(named, `is a link, and no link is followed in ${root.name}; name a file inside it`);
  }
}

function outside(root: FileRoot, named: string): OutsideRootError {
  return refusal(named, `is outside ${root.name} (after following links); name a file inside it`);
}

/** The path as written, shown short and escaped: nothing of what it leads to is quoted. */
function refusal(named: string, rule: string): OutsideRootError {
  return new OutsideRootError(`"${shown(named)}" ${rule}`);
}
