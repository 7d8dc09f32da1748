/**
 * Loads campaign files (YAML, one or several `---`-separated documents each) and checks them:
 * YAML syntax, the campaign schema, recipient files and their rows, unique campaign names.
 *
 * Nothing here throws for bad input: every problem is collected with its file, line and column,
 * so a marketer sees all of them at once, and the caller (the Pulumi program, `directmail
 * validate`) refuses to change anything while there is any.
 *
 * This file is the loader's public API; the checks are in yaml-document.ts (YAML syntax, nesting,
 * aliases, positions), document-check.ts (the campaign schema) and recipients-check.ts (the
 * recipients, inline or in a file).
 */
import * as fs from "node:fs/promises";
import * as path from "node:path";
import {
  campaignFolderRoot,
  type FileRoot,
  OutsideRootError,
  projectFileRoot,
  resolveInside,
} from "../file-root";
import { MAX_PRINTED_PROBLEMS } from "../limits";
import { projectRoot } from "../project";
import { overDropLimit, type PredictedDrops } from "../recipients/index";
import { LineTracker, notTextAt, oneLine } from "../text";
import { checkDocument, kindOf, nameOf } from "./document-check";
import { type CampaignProblem, displayPath, fileError, type Position } from "./problem";
import {
  checkRecipients,
  type KeptRecipientList,
  type RecipientsCheck,
  type RecipientsSeen,
} from "./recipients-check";
import { CampaignDocument, DOCUMENT_KINDS, type ResourceDocument } from "./schema";
import { type ParsedDocument, parseFile, positionOf, valueAt } from "./yaml-document";

export type { CampaignProblem } from "./problem";
export { type KeptRecipientList, MAX_RECIPIENT_PROBLEMS } from "./recipients-check";
export { MAX_ALIAS_VALUES, MAX_NESTING } from "./yaml-document";
/** Problems formatProblems prints per file; the rest are counted in one more line. */
export { MAX_PRINTED_PROBLEMS };

export interface LoadedCampaign {
  /** Absolute path of the campaign file. */
  file: string;
  /** 0-based position of the document in its file (documents are separated by `---`). */
  documentIndex: number;
  document: CampaignDocument;
  /** Absolute path of the recipients file, resolved relative to the campaign file; unset for inline recipients. */
  recipientsFile?: string;
  /** Absolute path of the conversions file (`spec.conversions.file`), resolved as recipientsFile. */
  conversionsFile?: string;
  /** The recipients the service will drop by its address rules, told offline. */
  predictedDrops?: PredictedDrops;
}

/**
 * What the loader read of each campaign's recipients (recipientListOf), kept beside the campaign
 * rather than in it: LoadedCampaign is public, its recipients' keys are not.
 */
const recipientLists = new WeakMap<LoadedCampaign, KeptRecipientList>();

/**
 * What the loader read of a campaign's recipients (their keys, rows and the fields they fill in,
 * never their rows), so that nothing reads them again for that; undefined for a campaign the
 * loader did not make.
 */
export const recipientListOf = (campaign: LoadedCampaign): KeptRecipientList | undefined =>
  recipientLists.get(campaign);

/** A document of another kind than Campaign (`Conversions`, `Automation`), checked. */
export interface LoadedResourceDocument {
  /** Absolute path of the file that holds it. */
  file: string;
  documentIndex: number;
  document: ResourceDocument;
  /** Absolute path of its records file (`spec.file`, `spec.recipients.file`), resolved relative to its file. */
  recordsFile?: string;
}

export interface LoadResult {
  /** The Campaign documents that passed every check, in file order then document order. */
  campaigns: LoadedCampaign[];
  /** The documents of other kinds (Conversions, Automation) that passed every check, in the same order. */
  resources: LoadedResourceDocument[];
  problems: CampaignProblem[];
  /** What is worth reading but refuses nothing: each recipient row the service will drop. */
  warnings: CampaignProblem[];
  /** The campaign files with a problem, in themselves or in a recipients file they name. */
  invalidFiles: string[];
}

export interface LoadOptions {
  /** The folder that paths inside messages are relative to; default the working directory. */
  relativeTo?: string;
  /**
   * The folder every campaign file and every file they name must stay inside (file-root.ts), or
   * that folder for each campaign file. Default: the campaign folder for loadCampaignsDir; for
   * loadCampaignFiles, the Pulumi project folder of each campaign file (its own folder outside one).
   */
  root?: FileRoot | ((campaignFile: string) => FileRoot | undefined);
  /**
   * false for a caller that shows no digest (`directmail validate`): recipients under a key column
   * are read without their content digests (RecipientSourceOptions.contentDigests), and their
   * lists (recipientListOf) hold no set. Default true.
   */
  contentDigests?: boolean;
  /**
   * What sees each recipient of a campaign's list as it is read (RecipientsSeen), asked for each
   * campaign whose list is read: `directmail review` keeps the base's rows it will list so.
   */
  recipientsSeen?: (campaign: { name: string; keyColumn: string | undefined }) => RecipientsSeen | undefined;
  /**
   * false for a side read only to be compared with another (`directmail review`'s base, whose
   * drops and merge fields nothing shows): its recipients are read for their keys, content digests,
   * rows and problems, without predicting drops or telling the fields they fill in (a sixth of a
   * keyed read's CPU); its campaigns then carry no predictedDrops, drop warning or
   * maxDroppedPercent problem, and their lists no `fields`. Default true.
   */
  recipientChecks?: boolean;
}

const CAMPAIGN_FILE = /\.ya?ml$/i;

/** Every `*.yaml`/`*.yml` file under `dir`, recursively, sorted by path. Hidden folders (`.git`, `.github`) are skipped. */
export async function listCampaignFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (folder: string) => {
    for (const entry of await fs.readdir(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      // A campaign repository's CI workflows (.github/workflows/*.yml) are YAML too, but not campaigns.
      if (entry.isDirectory() && !entry.name.startsWith(".")) await walk(full);
      else if ((entry.isFile() || entry.isSymbolicLink()) && CAMPAIGN_FILE.test(entry.name)) found.push(full);
    }
  };
  await walk(path.resolve(dir));
  return found.sort(compareStrings);
}

/** Loads every campaign file under `dir` (see listCampaignFiles); a missing folder is a problem. */
export async function loadCampaignsDir(dir: string, options: LoadOptions = {}): Promise<LoadResult> {
  const absolute = path.resolve(dir);
  let files: string[];
  try {
    const stat = await fs.stat(absolute);
    if (!stat.isDirectory()) {
      return problemOnly(absolute, "is not a folder; give the folder that holds the campaign files");
    }
    const root =
      typeof options.root === "object"
        ? options.root
        : campaignFolderRoot(absolute, displayPath(absolute, options.relativeTo));
    // A campaign folder that is a link where no link is followed (a review's base tree) is not listed.
    await resolveInside(root, ".", absolute);
    files = await listCampaignFiles(absolute);
    return loadCampaignFiles(files, { root, ...options });
  } catch (error) {
    return problemOnly(
      absolute,
      error instanceof OutsideRootError ? readProblem(error, "") : folderError(error),
    );
  }
}

/** Loads and checks the given campaign files (paths relative to the cwd or absolute). */
export async function loadCampaignFiles(paths: string[], options: LoadOptions = {}): Promise<LoadResult> {
  const campaigns: LoadedCampaign[] = [];
  const resources: LoadedResourceDocument[] = [];
  const problems: CampaignProblem[] = [];
  const warnings: CampaignProblem[] = [];
  const invalidFiles: string[] = [];
  /** metadata.name → where it was first declared. */
  const names = new Map<string, { file: string; position: Position }>();
  /** A recipients file named by several documents is read once (per key column and identity field). */
  const recipientChecks = new Map<string, Promise<RecipientsCheck>>();
  const given = options.root;
  const rootOf = (file: string) =>
    (typeof given === "function" ? given(file) : given) ?? projectFileRoot(projectRoot(path.dirname(file)));

  for (const file of [...new Set(paths.map((p) => path.resolve(p)))]) {
    const root = rootOf(file);
    let text: string;
    try {
      // A campaign file that is a link to outside its folder is not read.
      await resolveInside(root, path.relative(root.dir, file), root.dir);
      // Decoding drops a byte-order mark; a byte that is not UTF-8 becomes U+FFFD, found just below.
      text = new TextDecoder().decode(await fs.readFile(file));
    } catch (error) {
      problems.push({ file, line: 1, column: 1, ...readProblem(error, "campaign file") });
      invalidFiles.push(file);
      continue;
    }
    const binary = notTextAt(text);
    if (binary) {
      problems.push({ file, ...new LineTracker().positionOf(text, binary.index), message: binary.message });
      invalidFiles.push(file);
      continue;
    }
    const fileProblems: CampaignProblem[] = [];
    const lateProblems: CampaignProblem[] = [];
    const documents = parseFile(file, text, fileProblems);
    for (const parsed of documents) {
      const before = fileProblems.length + lateProblems.length;
      checkDocument(parsed, fileProblems);
      const name = nameOf(parsed.value);
      if (name !== undefined) {
        const position = positionOf(parsed, ["metadata", "name"]);
        const first = names.get(name);
        if (first) {
          fileProblems.push({
            file,
            ...position,
            message:
              `metadata.name: the campaign name "${name}" is already used in ` +
              `${displayPath(first.file, options.relativeTo)}:${first.position.line}:${first.position.column}; ` +
              "each campaign needs its own name (it names the campaign's resources)",
          });
        } else {
          names.set(name, { file, position });
        }
      }
      const kind = kindOf(parsed.value);
      if (kind !== "Campaign") {
        const at = kind === "Conversions" ? ["spec", "file"] : ["spec", "recipients", "file"];
        const recordsFile =
          fileProblems.length + lateProblems.length === before
            ? await namedFile(parsed, at, root, fileProblems)
            : undefined;
        if (fileProblems.length + lateProblems.length === before) {
          resources.push({
            file,
            documentIndex: parsed.index,
            document: DOCUMENT_KINDS[kind].parse(parsed.value) as ResourceDocument,
            ...(recordsFile !== undefined ? { recordsFile } : {}),
          });
        }
        continue;
      }
      const {
        file: recipientsFile,
        predicted,
        list,
      } = await checkRecipients(
        parsed,
        { problems: fileProblems, late: lateProblems, warnings },
        recipientChecks,
        root,
        options.relativeTo,
        options.contentDigests,
        options.recipientsSeen,
        options.recipientChecks,
      );
      const conversionsFile =
        fileProblems.length + lateProblems.length === before
          ? await namedFile(parsed, ["spec", "conversions", "file"], root, fileProblems)
          : undefined;
      if (fileProblems.length + lateProblems.length === before) {
        const document = CampaignDocument.parse(parsed.value);
        const campaign: LoadedCampaign = {
          file,
          documentIndex: parsed.index,
          document,
          ...(recipientsFile !== undefined ? { recipientsFile } : {}),
          ...(conversionsFile !== undefined ? { conversionsFile } : {}),
          ...(predicted !== undefined ? { predictedDrops: predicted } : {}),
        };
        if (list !== undefined) recipientLists.set(campaign, list);
        campaigns.push(campaign);
        // A campaign valid in itself stays listed with this problem: a review shows it under it.
        const over = predicted && overDropLimit(predicted, document.spec.recipients.maxDroppedPercent);
        if (over) {
          fileProblems.push({
            file,
            ...positionOf(parsed, ["spec", "recipients", "maxDroppedPercent"]),
            message:
              `spec.recipients.maxDroppedPercent: ${over}; fix or remove those rows, or raise ` +
              "maxDroppedPercent",
            dropLimit: true,
          });
        }
      }
    }
    fileProblems.sort((a, b) => a.line - b.line || a.column - b.column);
    // Not push(...list): a file can have more problems than a call takes arguments.
    for (const problem of [fileProblems, lateProblems].flat()) problems.push(problem);
    if (fileProblems.length + lateProblems.length > 0) invalidFiles.push(file);
  }
  return { campaigns, resources, problems: dedupe(problems), warnings: dedupe(warnings), invalidFiles };
}

/**
 * The file a document names at `at` (relative to the document's file), as an absolute path; a
 * problem at that value when it cannot be read. Undefined when the document names none. Its records
 * are checked by their resource at plan time, each problem with its row and field.
 */
async function namedFile(
  parsed: ParsedDocument,
  at: string[],
  root: FileRoot,
  problems: CampaignProblem[],
): Promise<string | undefined> {
  const named = valueAt(parsed.value, at);
  if (typeof named !== "string") return undefined;
  try {
    const absolute = await resolveInside(root, named, path.dirname(parsed.file));
    await fs.access(absolute, fs.constants.R_OK);
    return absolute;
  } catch (error) {
    problems.push({
      file: parsed.file,
      ...positionOf(parsed, at),
      ...readProblem(error, "file", `${at.join(".")}: `),
    });
    return undefined;
  }
}

/**
 * Problems as `path:line:column: message` lines, paths relative to `relativeTo` (default the
 * working directory) when that is shorter,
 * grouped by file: the first MAX_PRINTED_PROBLEMS of a file, then one line that counts the rest.
 * `line` writes each line another way (`directmail validate --format github`: annotations).
 */
export function formatProblems(
  problems: readonly CampaignProblem[],
  relativeTo?: string,
  line: (problem: CampaignProblem, shownPath: string) => string = (p, shownPath) =>
    `${shownPath}:${p.line}:${p.column}: ${p.warning ? "warning: " : ""}${p.message}`,
): string {
  const byFile = new Map<string, CampaignProblem[]>();
  for (const problem of problems) {
    const list = byFile.get(problem.file);
    if (list) list.push(problem);
    else byFile.set(problem.file, [problem]);
  }
  const lines: string[] = [];
  const print = (p: CampaignProblem, message: string) =>
    // One line each, whatever a path or a quoted service text holds.
    lines.push(oneLine(line({ ...p, message }, displayPath(p.file, relativeTo))));
  for (const list of byFile.values()) {
    for (const problem of list.slice(0, MAX_PRINTED_PROBLEMS)) print(problem, problem.message);
    const next = list[MAX_PRINTED_PROBLEMS];
    if (next) {
      const more = list.length - MAX_PRINTED_PROBLEMS;
      print(
        next,
        `${more} more ${next.warning ? "warning" : "problem"}${more === 1 ? "" : "s"} in this file from here on, not listed ` +
          `(${MAX_PRINTED_PROBLEMS} are listed per file); fix the ones above and check again`,
      );
    }
  }
  return lines.join("\n");
}

// ---------------------------------------------------------------------------------------------
// Helpers

function problemOnly(
  file: string,
  problem: string | Pick<CampaignProblem, "message" | "outsideRoot">,
): LoadResult {
  return {
    campaigns: [],
    resources: [],
    problems: [
      { file, line: 1, column: 1, ...(typeof problem === "string" ? { message: problem } : problem) },
    ],
    warnings: [],
    invalidFiles: [],
  };
}

/** Why a file was not read: refused by its root (marked so), or what reading it said. */
export function readProblem(
  error: unknown,
  what: string,
  prefix = "",
): Pick<CampaignProblem, "message" | "outsideRoot"> {
  if (error instanceof OutsideRootError) return { message: `${prefix}${error.message}`, outsideRoot: true };
  return { message: `${prefix}${fileError(error, what)}` };
}

function folderError(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === "ENOENT") return "campaign folder not found";
  if (code === "ENOTDIR") return "is not a folder; give the folder that holds the campaign files";
  if (code === "EACCES") return "campaign folder cannot be read (permission denied)";
  return `campaign folder cannot be read: ${(error as Error).message}`;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function dedupe(problems: CampaignProblem[]): CampaignProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.file}\0${p.line}\0${p.column}\0${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
