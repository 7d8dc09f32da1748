/**
 * Benchmark part `engine` (not a test): the time of a no-change `pulumi preview` and `pulumi up`
 * of a campaign folder of 20 campaigns (each a Campaign component with its Order, OrderRecipients
 * of ten inline recipients, and Checkout: 4 resources), by both doors (a TypeScript program on the
 * dynamic providers, `engineRatio*`, and a Pulumi YAML program on the provider plugin,
 * `engineRatio*Plugin`), against the floor: the same program shape
 * of a trivial `pulumi.dynamic` provider that does nothing (engine-stack.ts). The engine's own
 * work (a promise and a stack trace per property of each resource, the plan, the state) is in
 * both; what the ratio shows is this package's cost on top: loading it, reading the campaign
 * files, starting and configuring its provider, its check and diff hooks. Each command runs
 * `rounds` times, the two programs taking turns, and the medians count: of the CPU time of the
 * command's processes (engine, program, provider), which on a shared machine is what the command
 * costs; the wall times are printed beside. Part `engine500` is the
 * same at 500 campaigns.
 *
 *   node dist/scripts/bench/engine.js [--json] [--smoke] [--rounds 5]
 */
import {
  benchCampaigns,
  deploy,
  engineStacks,
  noChangeTimes,
  type Program,
  type Times,
} from "./engine-stack";
import { type BenchFigure, benchOptions, reportFigures } from "./result";
import { sizesOf } from "./sizes";

/** The no-change ratios' target, at 20 campaigns as at 500. */
export const ENGINE_RATIO_TARGET = 1.1;

/**
 * A figure of a no-change command: the campaigns' median CPU time (the command's processes: the
 * engine, the program, the provider) over the floor's, the wall times beside.
 */
function engineFigure(
  key: string,
  command: string,
  campaigns: { count: number; through: string; times: Times | undefined },
  floor: { what: string; times: Times | undefined },
): BenchFigure {
  const mine = campaigns.times ?? { wall: Number.NaN, cpu: Number.NaN };
  const theirs = floor.times ?? { wall: Number.NaN, cpu: Number.NaN };
  const ratio = Number((mine.cpu / theirs.cpu).toFixed(2));
  const wallRatio = (mine.wall / theirs.wall).toFixed(2);
  return {
    key,
    what:
      `no-change pulumi ${command} of ${campaigns.count} campaigns ${campaigns.through}, CPU time of its processes ` +
      `(${mine.cpu.toFixed(1)} s; wall ${mine.wall.toFixed(1)} s, ${wallRatio} x) / the same shape of no-op dynamic resources`,
    value: ratio,
    unit: "x",
    floor: {
      what: `${floor.what}, CPU (wall ${theirs.wall.toFixed(1)} s)`,
      value: Number(theirs.cpu.toFixed(1)),
      unit: "s",
    },
    target: `<= ${ENGINE_RATIO_TARGET}`,
    ok: ratio <= ENGINE_RATIO_TARGET,
  };
}

/**
 * The no-change preview's and up's figures of both doors, over the same floor: the TypeScript
 * program's (dynamic providers) under `keys`, the Pulumi YAML program's (the provider plugin) under
 * `keys` with `Plugin` inserted after `engineRatio<Command>` (`engineRatioPreviewPlugin500`).
 */
export function noChangeFigures(
  times: Record<"preview" | "up", Map<Program, Times>>,
  programs: { campaigns: Program; plugin: Program; noop: Program },
  described: { count: number; floor: string },
  keys: Record<"preview" | "up", string>,
): BenchFigure[] {
  const doors = [
    { program: programs.campaigns, through: "(TypeScript, dynamic providers)", key: (k: string) => k },
    {
      program: programs.plugin,
      through: "(Pulumi YAML, the provider plugin)",
      key: (k: string) => k.replace(/^(engineRatio(?:Preview|Up))/, "$1Plugin"),
    },
  ];
  return doors.flatMap((door) =>
    (["preview", "up"] as const).map((command) =>
      engineFigure(
        door.key(keys[command]),
        command,
        { count: described.count, through: door.through, times: times[command].get(door.program) },
        { what: described.floor, times: times[command].get(programs.noop) },
      ),
    ),
  );
}

async function main(): Promise<void> {
  const options = benchOptions();
  const args = process.argv.slice(2);
  const sizes = sizesOf("engine", options);
  const count = sizes.campaigns;
  const rounds = options.smoke ? sizes.rounds : Number(args[args.indexOf("--rounds") + 1]) || sizes.rounds;
  const stacks = await engineStacks("engine", benchCampaigns(count, 1));
  try {
    const { campaigns, plugin, noop } = stacks;
    for (const program of [campaigns, plugin, noop]) await deploy(program);
    const times = await noChangeTimes([campaigns, plugin, noop], rounds);
    const figures = noChangeFigures(
      times,
      { campaigns, plugin, noop },
      { count, floor: `${count} x 4 no-op resources` },
      { preview: "engineRatioPreview", up: "engineRatioUp" },
    );
    reportFigures(figures, options);
  } finally {
    stacks.cleanUp();
  }
}

if (require.main === module)
  main().catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
