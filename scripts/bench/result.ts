/**
 * What every benchmark part reports, so `npm run bench` (scripts/bench.ts) can print one table and
 * write one `bench-results.json`. A part is a script `dist/scripts/bench/<part>.js`; with `--json`
 * it prints its rows as one line starting with `BENCH-RESULT `, and with `--smoke` it runs at tiny
 * sizes (the smoke test runs every part that way, so the scripts cannot rot).
 */

export interface BenchFigure {
  /** The key in bench-results.json, e.g. `recipientsRatio`. */
  key: string;
  /** One line saying what was measured. */
  what: string;
  value: number;
  unit: string;
  /** The floor measured in the same run, where the figure is a ratio against one. */
  floor?: { what: string; value: number; unit: string };
  /** The target in words (`<= 1.15`), and whether the value meets it. */
  target: string;
  ok: boolean;
}

const marker = "BENCH-RESULT ";

/** The key in bench-results.json of a figure's floor, written beside the figure. */
export const floorKey = (key: string): string => `${key}Floor`;

export interface BenchOptions {
  smoke: boolean;
  json: boolean;
}

export function benchOptions(argv = process.argv.slice(2)): BenchOptions {
  return { smoke: argv.includes("--smoke"), json: argv.includes("--json") };
}

/** Prints the figures: one machine-readable line with `--json`, a readable list otherwise. */
export function reportFigures(figures: BenchFigure[], options: BenchOptions): void {
  if (options.json) {
    console.log(`${marker}${JSON.stringify(figures)}`);
    return;
  }
  for (const f of figures) {
    const floor = f.floor ? ` (floor: ${f.floor.what} ${f.floor.value} ${f.floor.unit})` : "";
    console.log(`${f.key}: ${f.value} ${f.unit}${floor}, target ${f.target}: ${f.ok ? "ok" : "MISSED"}`);
  }
}

/** Reads the figures a part printed with `--json`. */
export function parseFigures(stdout: string): BenchFigure[] {
  const line = stdout.split("\n").find((l) => l.startsWith(marker));
  if (!line) throw new Error("the benchmark printed no BENCH-RESULT line");
  return JSON.parse(line.slice(marker.length)) as BenchFigure[];
}
