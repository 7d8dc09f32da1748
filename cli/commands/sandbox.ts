import * as os from "node:os";
import * as path from "node:path";
import { type Command, InvalidArgumentError } from "commander";
import { registerSandboxControlCommands } from "./sandbox-control";

/** The provider's default target (DEFAULT_SANDBOX_URL in provider/settings.ts) listens here. */
export const DEFAULT_SANDBOX_PORT = 4010;

export function defaultDataDir(): string {
  return path.join(os.homedir(), ".directmail", "sandbox");
}

function nonNegativeNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError("expected a number of at least 0");
  return n;
}

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError("expected a port number (0 picks a free one)");
  return n;
}

export interface SandboxCommandOptions {
  port: number;
  host: string;
  data: string;
  seed?: string;
  speed: number;
  settlementSeconds?: number;
  quiet?: boolean;
}

/**
 * `directmail sandbox`: the local sandbox of the service. The first stdout line is JSON with the URL
 * (and with `--seed demo` the demo account's key and ids); stderr has one line per request, without
 * keys. SIGINT and SIGTERM close it cleanly.
 */
export function registerSandboxCommand(program: Command): void {
  const sandbox = program
    .command("sandbox")
    .description("Run the local sandbox of the direct-mail service (the provider's default target).")
    .option("--port <port>", "port to listen on; 0 picks a free one", port, DEFAULT_SANDBOX_PORT)
    .option(
      "--host <host>",
      "address to listen on (the control API answers loopback clients only)",
      "127.0.0.1",
    )
    .option("--data <dir>", "folder of the SQLite database; ':memory:' keeps nothing", defaultDataDir())
    .option("--seed <name>", "seed data: 'demo' creates a demo account, templates and an automation")
    .option("--speed <factor>", "sandbox seconds per wall second", nonNegativeNumber, 1)
    .option(
      "--settlement-seconds <seconds>",
      "sandbox seconds from checkout to payment settlement",
      nonNegativeNumber,
    )
    .option("--quiet", "no request log on stderr")
    .action(async (options: SandboxCommandOptions) => {
      await runSandbox(options);
    });
  registerSandboxControlCommands(sandbox);
}

export async function runSandbox(options: SandboxCommandOptions): Promise<void> {
  if (options.seed !== undefined && options.seed !== "demo") {
    throw new InvalidArgumentError(`--seed: unknown seed '${options.seed}' (known: demo)`);
  }
  // Loaded here, not at the top: other subcommands must not pay for the sandbox's start-up.
  // (require, not import(): this package compiles to CommonJS, where import() would stay an ESM load.)
  const { Sandbox } = require("../../sandbox/sandbox") as typeof import("../../sandbox/sandbox");
  const { seedDemo } = require("../../sandbox/seed") as typeof import("../../sandbox/seed");
  const storage =
    options.data === ":memory:" ? ":memory:" : path.join(path.resolve(options.data), "sandbox.db");
  const sandbox = new Sandbox({
    storage,
    speed: options.speed,
    timings: options.settlementSeconds === undefined ? {} : { settlementSeconds: options.settlementSeconds },
    requestLog: !options.quiet,
  });
  const seed = options.seed === "demo" ? seedDemo(sandbox) : undefined;
  let url: string;
  try {
    url = await sandbox.listen(options.port, options.host);
  } catch (error) {
    await sandbox.close();
    if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") {
      throw new Error(
        `port ${options.port} on ${options.host} is in use: pass --port 0 for a free port, or another --port`,
      );
    }
    throw error;
  }
  process.stdout.write(
    `${JSON.stringify({
      url,
      storage,
      ...(seed
        ? { apiKey: seed.apiKey, templates: seed.templates, integrationOrderId: seed.integrationOrderId }
        : {}),
    })}\n`,
  );
  await new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.stderr.write(`sandbox: ${signal}, closing\n`);
      sandbox.close().then(resolve, (error) => {
        process.stderr.write(`sandbox: close failed: ${error}\n`);
        process.exitCode = 1;
        resolve();
      });
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
}
