/**
 * Benchmark part `engine500` (not a test): part `engine` at 500 campaigns in one stack (about 1,500
 * resources: drafts, and every tenth paid, its checkout charged and settled), and what the CLI does
 * with such a stack:
 *
 * - `engineRatioPreview500`, `engineRatioUp500`: no-change `pulumi preview` and `pulumi up` over the
 *   same shape of no-op dynamic resources (engine-stack.ts), the programs taking turns, medians;
 *   `engineRatioPreviewPlugin500`, `engineRatioUpPlugin500`: the same campaign files in a Pulumi
 *   YAML program, through the provider plugin, over the same floor;
 * - `reviewRatio500`: `directmail review --base HEAD` of a change to the recipients of 5 campaigns
 *   (drafts), over `pulumi preview` of the same change alone, taking turns, medians;
 *
 * the ratios of the CPU time of the commands' processes (see engine.ts), the wall times beside;
 * - `statusRequests500`, `reportRequests500`: the requests `directmail status` and `directmail
 *   report` send to the service for the stack's 500 orders (the sandbox's request log). Entries 12
 *   and 13 take many ids a request; a request per order would be 1,000 of them.
 *
 * Deploying takes most of the part's time (both programs, once). `--smoke`: 2 campaigns, one paid,
 * the other changed (sizes.ts).
 *
 *   node dist/scripts/bench/engine500.js [--json] [--smoke] [--rounds 1]
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { EXIT } from "../../cli/review/model";
import { noChangeFigures } from "./engine";
import {
  benchCampaigns,
  cpuTimed,
  deploy,
  directmail,
  directmailBin,
  engineStacks,
  median,
  noChangeTimes,
  pulumiTimes,
  type Times,
} from "./engine-stack";
import { type BenchFigure, benchOptions, reportFigures } from "./result";
import { sizesOf } from "./sizes";

/** `directmail review` over `pulumi preview` of the same change. */
const REVIEW_RATIO_TARGET = 1.3;
/**
 * Requests of `status` or `report` for 500 orders: one analytics and one transactions request a
 * few hundred orders; a request per order, of either, is 500 or more.
 */
const REQUESTS_TARGET = 10;

const say = (line: string) => process.stderr.write(`engine500: ${line}\n`);

async function main(): Promise<void> {
  const options = benchOptions();
  const args = process.argv.slice(2);
  const sizes = sizesOf("engine500", options);
  const { changed } = sizes;
  const count = sizes.campaigns;
  const rounds = options.smoke ? sizes.rounds : Number(args[args.indexOf("--rounds") + 1]) || sizes.rounds;
  // The review and its preview are timed twice (their means): a single pair moved by a fifth
  // between runs of the same code, a pair of these 30-second commands costs about a minute.
  const reviewRounds = Math.max(rounds, sizes.minReviewRounds);
  const stacks = await engineStacks("engine500", benchCampaigns(count, sizes.paidEvery));
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-bench-review-"));
  try {
    const { campaigns, plugin, noop, sandbox } = stacks;
    for (const program of [campaigns, plugin, noop]) {
      const seconds = await deploy(program);
      say(`${program.name}: deployed in ${seconds.toFixed(1)} s`);
    }
    // The checkouts settle on the sandbox's clock.
    const advanced = await fetch(`${sandbox.url}/_sandbox/clock/advance`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ seconds: 120 }),
    });
    if (!advanced.ok) throw new Error(`the sandbox's clock did not move: ${advanced.status}`);

    const times = await noChangeTimes([campaigns, plugin, noop], rounds);
    const paid = stacks.declared.filter((c) => c.paid).length;
    const floor = `${count} campaigns' shape of no-op resources (${paid} paid)`;
    const engineFigures = noChangeFigures(
      times,
      { campaigns, plugin, noop },
      { count, floor },
      { preview: "engineRatioPreview500", up: "engineRatioUp500" },
    );

    // Orders first: the review below changes files, not the stack.
    const statusBefore = stacks.requests();
    const status = await directmail(campaigns, ["status", "--json"]);
    const statusRequests = stacks.requests() - statusBefore;
    const statusOrders = (JSON.parse(status.stdout) as { found: boolean }[]).filter((o) => o.found).length;
    const reportBefore = stacks.requests();
    await directmail(campaigns, ["report", "--out", path.join(out, "report.html")]);
    const reportRequests = stacks.requests() - reportBefore;
    if (statusOrders !== count) throw new Error(`directmail status found ${statusOrders} orders of ${count}`);

    // A change to the recipients of a few drafts, not committed: the review compares it with HEAD.
    const drafts = stacks.declared.filter((c) => !c.paid).slice(0, changed);
    for (const campaign of drafts) stacks.writeCampaign({ ...campaign, greeting: "Hello again" });
    const previewTimes: Times[] = [];
    const reviewTimes: Times[] = [];
    for (let round = 0; round < reviewRounds; round++) {
      previewTimes.push(await pulumiTimes(campaigns, ["preview"]));
      reviewTimes.push(
        await cpuTimed(
          campaigns,
          [process.execPath, directmailBin, "review", "--base", "HEAD", "--out", path.join(out, "review")],
          [EXIT.needsApproval],
        ),
      );
    }
    const reviewed = JSON.parse(fs.readFileSync(path.join(out, "review", "review.json"), "utf8")) as {
      campaigns: { name: string; actions: string[] }[];
    };
    const updated = reviewed.campaigns.filter((c) => c.actions.includes("update")).length;
    if (updated !== changed) throw new Error(`the review found ${updated} campaigns changed, not ${changed}`);
    const [preview, review] = [previewTimes, reviewTimes].map((t) => ({
      wall: median(t.map((x) => x.wall)),
      cpu: median(t.map((x) => x.cpu)),
    })) as [Times, Times];
    const reviewRatio = Number((review.cpu / preview.cpu).toFixed(2));

    const requestsFigure = (key: string, command: string, requests: number): BenchFigure => ({
      key,
      what: `requests of directmail ${command} for the stack's ${count} orders (the sandbox's request log)`,
      value: requests,
      unit: "requests",
      target: `<= ${REQUESTS_TARGET}`,
      ok: requests <= REQUESTS_TARGET,
    });
    reportFigures(
      [
        ...engineFigures,
        {
          key: "reviewRatio500",
          what:
            `directmail review --base HEAD of a change to ${changed} of ${count} campaigns, CPU time of its processes ` +
            `(${review.cpu.toFixed(1)} s; wall ${review.wall.toFixed(1)} s, ${(review.wall / preview.wall).toFixed(2)} x) / pulumi preview of it`,
          value: reviewRatio,
          unit: "x",
          floor: {
            what: `pulumi preview of the change, CPU (wall ${preview.wall.toFixed(1)} s)`,
            value: Number(preview.cpu.toFixed(1)),
            unit: "s",
          },
          target: `<= ${REVIEW_RATIO_TARGET}`,
          ok: reviewRatio <= REVIEW_RATIO_TARGET,
        },
        requestsFigure("statusRequests500", "status", statusRequests),
        requestsFigure("reportRequests500", "report", reportRequests),
      ],
      options,
    );
  } finally {
    stacks.cleanUp();
    fs.rmSync(out, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
