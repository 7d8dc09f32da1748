/**
 * The project's `pulumi` CLI, run directly: one process for each question the commands ask of a
 * stack (`stack ls`, `config`, `stack export`, `preview`), each answered in the CLI's documented
 * JSON. Every command runs `--non-interactive` in the project's folder with the user's environment
 * (backend, passphrase, PULUMI_HOME), and every command but `stack ls` names its stack (`--stack`):
 * the user's selected stack, where the next `pulumi up` goes, never changes.
 *
 * The Automation API would ask the same questions with the same commands, but loading it (the
 * Pulumi SDK, gRPC) and its `pulumi version` check cost about 0.6 s of CPU before the first one,
 * more than the questions themselves; and it takes a preview's events over gRPC, several copies of
 * each, where the CLI can write them on its stdout.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { createInterface } from "node:readline";
import { parse as parseYaml } from "yaml";
import { PROJECT_FILES } from "../../provider/project";

/** What a failed `pulumi` command said on stderr (its last part), beside its command line. */
export class PulumiCommandError extends Error {
  constructor(
    message: string,
    readonly stderr: string,
  ) {
    super(message);
    this.name = "PulumiCommandError";
  }
}

/** A stack of the project as `pulumi stack ls` lists it. */
export interface StackSummary {
  /** As the backend names it: `dev`, or `org/project/dev` for Pulumi Cloud. */
  name: string;
  /** It is the selected stack. */
  current: boolean;
}

/** A value of a stack's configuration as `pulumi config --json` gives it (secrets decrypted). */
export interface ConfigValue {
  value: string;
  secret: boolean;
}

/** An engine event as `pulumi preview --json` streams it (apitype.EngineEvent), one JSON object a line. */
export interface EngineEvent {
  resourcePreEvent?: {
    metadata: {
      op: string;
      urn: string;
      type: string;
      old?: { parent?: string; retainOnDelete?: boolean; inputs: Record<string, unknown> };
      new?: { parent?: string; retainOnDelete?: boolean; inputs: Record<string, unknown> };
    };
  };
  diagnosticEvent?: { severity: string; message: string; urn?: string };
}

/** The stderr a failed command's message keeps: its last lines are what pulumi said. */
const STDERR_KEPT = 64 * 1024;

/** The project's stacks, through its `pulumi` CLI. */
export class PulumiProject {
  constructor(
    /** The project's folder (where Pulumi.yaml is). */
    readonly root: string,
    /** The CLI to run: the `pulumi` on PATH, as the user's own commands run it. */
    private readonly command = "pulumi",
  ) {}

  /** The project's name, from its Pulumi.yaml (the folder's name when it has none). */
  name(): string {
    const file = PROJECT_FILES.map((name) => path.join(this.root, name)).find(existsSync);
    const name = file
      ? (parseYaml(readFileSync(file, "utf8")) as { name?: unknown } | null)?.name
      : undefined;
    return typeof name === "string" ? name : path.basename(this.root);
  }

  /** `pulumi stack ls --json`: the project's stacks, the selected one marked. */
  async listStacks(): Promise<StackSummary[]> {
    const listed = JSON.parse(await this.run(["stack", "ls", "--json"])) as StackSummary[];
    return listed.map(({ name, current }) => ({ name, current: current === true }));
  }

  /** `pulumi config --show-secrets --json`: the stack's configuration, secrets decrypted. */
  async config(stack: string): Promise<Record<string, ConfigValue>> {
    return JSON.parse(await this.run(["config", "--show-secrets", "--json", "--stack", stack]));
  }

  /**
   * `pulumi stack export`: the stack's last deployment, its secrets as stored (encrypted), or in
   * clear with `showSecrets`, which derives the passphrase's key (about 0.2 s of CPU) to decrypt them.
   */
  async exportStack(stack: string, options: { showSecrets?: boolean } = {}): Promise<unknown> {
    const shown = options.showSecrets ? ["--show-secrets"] : [];
    return JSON.parse(await this.run(["stack", "export", ...shown, "--stack", stack]));
  }

  /**
   * `pulumi preview` of the stack, each of its engine events given to `onEvent` as the CLI streams
   * them (`--json` with PULUMI_ENABLE_STREAMING_JSON_PREVIEW: one JSON event a line, the events the
   * Automation API reads). It fails as the preview fails; `signal` interrupts it as Ctrl-C does, so
   * that the CLI stops the program and the provider it started.
   */
  async preview(stack: string, onEvent: (event: EngineEvent) => void, signal?: AbortSignal): Promise<void> {
    await this.run(["preview", "--stack", stack, "--json"], {
      env: { PULUMI_ENABLE_STREAMING_JSON_PREVIEW: "true" },
      // A line that is not an object (a warning the CLI prints before the engine starts) is not
      // an event; an event that is not JSON ends the preview.
      onLine: (line) => {
        if (line.startsWith("{")) onEvent(JSON.parse(line) as EngineEvent);
      },
      signal,
    });
  }

  /**
   * Runs `pulumi ARGS --non-interactive` in the project's folder with the user's environment (and
   * `env`); its stdout, or, with `onLine`, each of its lines as it comes.
   */
  private run(
    args: string[],
    options: {
      env?: Record<string, string>;
      onLine?: (line: string) => void;
      signal?: AbortSignal | undefined;
    } = {},
  ): Promise<string> {
    const { env, onLine, signal } = options;
    return new Promise((resolve, reject) => {
      const child = spawn(this.command, [...args, "--non-interactive"], {
        cwd: this.root,
        env: { ...process.env, ...env },
        stdio: ["ignore", "pipe", "pipe"],
      });
      const out: Buffer[] = [];
      let err = "";
      let failure: unknown;
      if (onLine) {
        createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY }).on("line", (line) => {
          if (failure !== undefined) return;
          try {
            onLine(line);
          } catch (error) {
            // A line it cannot take ends the command: what it says after that is of no use.
            failure = error;
            child.kill("SIGINT");
          }
        });
      } else {
        child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
      }
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
        err = (err + chunk).slice(-STDERR_KEPT);
      });
      const interrupt = () => child.kill("SIGINT");
      if (signal?.aborted) interrupt();
      else signal?.addEventListener("abort", interrupt, { once: true });
      child.on("error", (error: NodeJS.ErrnoException) => {
        signal?.removeEventListener("abort", interrupt);
        reject(
          error.code === "ENOENT"
            ? new Error(
                "the pulumi CLI is not installed, or not on PATH: install it (https://www.pulumi.com/docs/install/) or add its folder to PATH",
              )
            : error,
        );
      });
      child.on("close", (code, stoppedBy) => {
        signal?.removeEventListener("abort", interrupt);
        if (failure !== undefined) reject(failure);
        else if (code === 0) resolve(Buffer.concat(out).toString("utf8"));
        else
          reject(
            new PulumiCommandError(
              `pulumi ${args.join(" ")} ${code === null ? `stopped by ${stoppedBy}` : `exited with code ${code}`}`,
              err,
            ),
          );
      });
    });
  }
}
