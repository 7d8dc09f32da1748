/**
 * `directmail review`: for a stack of a Pulumi project, what a change will do, from three sources:
 *   - the plan: `pulumi preview`, and the stack's state (the project's pulumi CLI, cli/stack/pulumi.ts);
 *   - the campaign files at the base ref and at the head (the working tree);
 *   - the live service: each planned checkout's exact price (the checkout preview), the drafts'
 *     proofs, the orders' statuses.
 * Nothing changes anywhere: the preview, the service's reads and its checkout preview have no side
 * effect, and the base's files are read from git into a temporary folder.
 *
 * This file sequences the work (the stack opened, the preview started, the sides read, the report
 * written); facts.ts gathers each campaign's facts, and recipient-sides.ts where its recipients
 * come from at each side and their comparisons.
 */
import * as fs from "node:fs/promises";
import * as path from "node:path";
import { chargesThisMonth } from "../../provider/api/charges";
import type { DirectMailClient } from "../../provider/index";
import { PulumiProject } from "../stack/pulumi";
import {
  clientFor,
  findProject,
  type ServiceSettings,
  type StackSelection,
  selectStack,
  settingsOfStack,
} from "../stack/settings";
import { shownPath } from "../stack/shown-path";
import { type DeployedResource, deployedResources } from "../stack/state";
import { reviewCampaigns } from "./facts";
import { type CampaignFiles, DEFAULT_CAMPAIGNS_DIR, extractBase, loadSide } from "./files";
import { renderMarkdown } from "./markdown";
import {
  budgetOf,
  type CampaignReview,
  exitCodeOf,
  REPORT_VERSION,
  type Review,
  type ReviewBudget,
  type ValidationProblem,
} from "./model";
import { type PlanResult, previewPlan } from "./plan";
import { keepBaseRows, recipientComparisons } from "./recipient-sides";
import type { BaseRowsKept } from "./recipients";

export interface ReviewOptions {
  /** The Pulumi project folder, or a folder inside it. */
  cwd: string;
  /** The stack (default the selected one). */
  stack?: string;
  /** The git ref whose campaign files the working tree is compared with. */
  base?: string;
  /** Where review.md, review.json and proofs/ are written. */
  out: string;
  /** The campaign folder, relative to the project (default: the stack's campaignsDir, else `campaigns`). */
  campaigns?: string;
  showPersonalData: boolean;
  /**
   * An offline review: the campaign files alone, without the stack, the service or a secret; the
   * paths the change alters outside the campaign files flag it "code changed".
   */
  offline?: { codeChanges: string[] };
}

export interface ReviewOutcome {
  review: Review;
  markdown: string;
  files: { markdown: string; json: string; proofs: string };
}

export async function runReview(options: ReviewOptions): Promise<ReviewOutcome> {
  const root = findProject(options.cwd);
  if (root === undefined) {
    throw new Error(`directmail review runs in a Pulumi project: no Pulumi.yaml in ${options.cwd} or above`);
  }
  const target = options.offline ? undefined : await openStack(root, options.stack);
  return reviewWith(root, target, options);
}

/** The stack a priced review previews and its service settings. */
interface StackTarget {
  selection: StackSelection;
  stackName: string;
  project: string;
  settings: ServiceSettings;
}

async function openStack(root: string, stackName: string | undefined): Promise<StackTarget> {
  const selection = await selectStack(root, stackName);
  if (selection === undefined) {
    throw new Error(
      `no stack is selected in the Pulumi project ${root}: run \`pulumi stack select\` or give --stack`,
    );
  }
  const settings = await settingsOfStack(selection);
  const project = selection.pulumi.name();
  return { selection, stackName: selection.stackName, project, settings };
}

async function reviewWith(
  root: string,
  target: StackTarget | undefined,
  options: ReviewOptions,
): Promise<ReviewOutcome> {
  const project = target?.project ?? new PulumiProject(root).name();
  const dir =
    options.campaigns ?? target?.settings.config(`${project}:campaignsDir`)?.trim() ?? DEFAULT_CAMPAIGNS_DIR;

  const out = path.resolve(options.out);
  const proofsDir = path.join(out, "proofs");
  // Proofs of an earlier run would pass for this one's.
  await fs.rm(proofsDir, { recursive: true, force: true });
  await fs.mkdir(proofsDir, { recursive: true });

  // The preview runs in processes of its own (the pulumi CLI, the program, the provider) while this
  // one reads the campaign files at the head and at the base: a list of a million recipients takes
  // seconds to read on each side. It is stopped, and not used, when the head's files have problems.
  const stack = target?.selection;
  const stop = new AbortController();
  const preview = stack ? { stack, planning: previewPlan(stack, stop.signal), stop } : undefined;
  try {
    return await reviewFiles({ root, dir, out, proofsDir, project, target, preview }, options);
  } finally {
    // Whatever happened meanwhile, no preview is left running.
    stop.abort();
    await preview?.planning;
  }
}

/** A preview started ahead of the files' checks: its stack, its plan to come, and what stops it. */
interface EarlyPreview {
  stack: StackSelection;
  planning: Promise<PlanResult>;
  stop: AbortController;
}

async function reviewFiles(
  where: {
    root: string;
    dir: string;
    out: string;
    proofsDir: string;
    project: string;
    target: StackTarget | undefined;
    preview: EarlyPreview | undefined;
  },
  options: ReviewOptions,
): Promise<ReviewOutcome> {
  const { root, dir, out, proofsDir, project, target, preview } = where;
  const problems: string[] = [];
  // The base's files are taken from git while the head's are read.
  const baseExtracted = options.base !== undefined ? extractBase(root, options.base) : undefined;
  baseExtracted?.catch(() => {});
  // The state is read beside the preview (a preview does not change it), before the sides are: its
  // export holds a million recipients' index several times over for a moment (tens of MB each),
  // which must not come on top of the sides' tables. A failure is reported where it is used.
  const stateRead =
    // With secrets: the deployed recipient index says which rows are dropped now (drops.ts).
    target !== undefined && preview !== undefined
      ? deployedResources(preview.stack, { withSecrets: true })
      : undefined;
  await stateRead?.catch(() => {});
  let head: CampaignFiles | undefined;
  try {
    head = await loadSide(root, dir);
  } catch (error) {
    await baseExtracted?.then(
      (tree) => tree.remove(),
      () => {},
    );
    throw error;
  }
  // Drops above a maxDroppedPercent show under their campaign, figured with the draft's state too.
  const dropLimits = (head?.loaded.problems ?? []).filter((p) => p.dropLimit);
  const validation: ValidationProblem[] = (head?.loaded.problems ?? [])
    .filter((p) => !p.dropLimit)
    .map((p) => ({ ...p, file: path.relative(root, p.file) || p.file }));
  const baseTree = await baseExtracted;
  try {
    const kept = new Map<string, BaseRowsKept | undefined>();
    const base = baseTree
      ? await loadSide(baseTree.root, dir, { recipientsSeen: keepBaseRows(head, kept) })
      : undefined;
    // The recipients compared while the preview runs: each side read, the rows listed read again.
    const comparisons = recipientComparisons(
      head,
      base,
      baseTree !== undefined,
      kept,
      options.showPersonalData,
    );
    // Files the base names outside its campaign folder, or through a link, are not read: said here.
    for (const p of base?.loaded.problems ?? [])
      if (p.outsideRoot)
        problems.push(
          `at ${options.base}: ${path.relative(base?.root ?? "", p.file)}:${p.line}:${p.column}: ${p.message}`,
        );

    let plan: PlanResult = { steps: [], diagnostics: [], failure: undefined };
    let state: DeployedResource[] = [];
    let client: DirectMailClient | undefined;
    if (target !== undefined && preview !== undefined) {
      if (validation.length > 0) {
        preview.stop.abort();
        await preview.planning;
        problems.push("the preview did not run: the campaign files have problems (listed below)");
      } else if (dropLimits.length > 0) {
        // The program refuses what the loader refuses: a preview would only say it again.
        preview.stop.abort();
        await preview.planning;
        problems.push(
          "the preview did not run: a campaign's recipients exceed its maxDroppedPercent (see below)",
        );
      } else {
        plan = await preview.planning;
      }
      state = await (stateRead as Promise<DeployedResource[]>);
      client = clientFor(target.settings);
    }
    let campaigns: CampaignReview[];
    let budget: ReviewBudget | undefined;
    try {
      campaigns = await reviewCampaigns({
        names: campaignNames(head, base, plan, state),
        head,
        base,
        comparisons,
        plan,
        state,
        client,
        proofsDir,
        showPersonalData: options.showPersonalData,
        problems,
      });
      const monthlyBudget = target?.settings.monthlyBudget;
      if (client !== undefined && monthlyBudget !== undefined) {
        try {
          budget = budgetOf(campaigns, await chargesThisMonth(client), monthlyBudget);
        } catch (error) {
          problems.push(
            `this month's charges could not be read for directmail:monthlyBudget: ${(error as Error).message}`,
          );
        }
      }
    } finally {
      await client?.close();
    }
    // A failure the campaigns do not explain (the program itself failed, say) is a problem of its own.
    if (plan.failure !== undefined) {
      const errors = plan.diagnostics.filter((d) => d.severity === "error");
      for (const d of errors) if (d.campaign === undefined) problems.push(`preview: ${d.message}`);
      if (errors.length === 0) problems.push(`preview failed: ${plan.failure}`);
    }
    // Proofs are named from the report's folder, where review.md links them.
    for (const c of campaigns) if (c.proof) c.proof.file = path.relative(out, c.proof.file);
    const partial = {
      version: REPORT_VERSION,
      project,
      stack: target?.stackName ?? null,
      base: options.base !== undefined && baseTree ? { ref: options.base, commit: baseTree.commit } : null,
      service: target ? { baseUrl: target.settings.baseUrl, settingsFrom: target.settings.from } : null,
      offline: options.offline ? { codeChanges: options.offline.codeChanges } : null,
      campaigns,
      validation,
      problems,
      proofsDir: target ? shownPath(proofsDir) : undefined,
      showPersonalData: options.showPersonalData,
      ...(budget ? { budget } : {}),
    } as const;
    const review: Review = { ...partial, exitCode: exitCodeOf(partial) };
    const markdown = renderMarkdown(review);
    const files = {
      markdown: path.join(out, "review.md"),
      json: path.join(out, "review.json"),
      proofs: proofsDir,
    };
    await fs.writeFile(files.markdown, markdown);
    await fs.writeFile(files.json, `${JSON.stringify(review, null, 2)}\n`);
    return { review, markdown, files };
  } finally {
    await baseTree?.remove();
  }
}

/** Every campaign of the change: the head's files in order, then the base's, then the plan's and the state's. */
function campaignNames(
  head: CampaignFiles | undefined,
  base: CampaignFiles | undefined,
  plan: PlanResult,
  state: DeployedResource[],
): string[] {
  const names = new Set<string>();
  for (const side of [head, base])
    for (const c of side?.loaded.campaigns ?? []) names.add(c.document.metadata.name);
  const others = [...plan.steps, ...state]
    .map((r) => r.campaign)
    .filter((name): name is string => name !== undefined && !names.has(name));
  for (const name of [...new Set(others)].sort()) names.add(name);
  return [...names];
}
