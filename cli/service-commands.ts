import * as fs from "node:fs/promises";
import * as path from "node:path";
import { type Command, InvalidArgumentError } from "commander";
import { say } from "./output";
import { clientFor, serviceSettings } from "./stack-settings";

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError("expected a positive whole number");
  return n;
}

export interface StackOptions {
  cwd?: string;
  stack?: string;
}

/** `--cwd` and `--stack`: which project's stack configuration gives the service and the key. */
export function withStackOptions(command: Command): Command {
  return command
    .option("--cwd <dir>", "the Pulumi project folder (default: the working directory)")
    .option("--stack <name>", "the stack whose configuration to read (default: the selected stack)");
}

/**
 * `directmail whoami` and `directmail proof`: the two service calls a reviewer of a campaign needs
 * by hand, confirming which account a key belongs to and looking at a draft's proof. Inside a Pulumi
 * project they use the selected stack's configuration (see stack-settings.ts).
 */
export function registerServiceCommands(program: Command): void {
  withStackOptions(
    program
      .command("whoami")
      .description(
        "Show the account the commands use: the selected stack's directmail:baseUrl and directmail:apiKey " +
          "inside a Pulumi project, else DIRECTMAIL_BASE_URL and DIRECTMAIL_API_KEY (default: the local sandbox).",
      ),
  ).action(async (options: StackOptions) => {
    const settings = await serviceSettings(options);
    const client = clientFor(settings);
    try {
      const profile = await client.me();
      say(
        `${profile.email} (${profile.firstName} ${profile.lastName}, ${profile.company}) at ${client.baseUrl}`,
      );
      say(`(${settings.from})`);
    } finally {
      await client.close();
    }
  });
  withStackOptions(
    program
      .command("proof")
      .description("Save the proof PDF of an order: its first mailable recipient, or --recipient.")
      .argument("<orderId>", "the order", positiveInt)
      .option("--recipient <id>", "a recipient of that order", positiveInt)
      .option("--out <file>", "where to write the PDF", "proof.pdf"),
  ).action(async (orderId: number, options: StackOptions & { recipient?: number; out: string }) => {
    const settings = await serviceSettings(options);
    const out = path.resolve(options.out);
    // `--out proofs/draft.pdf` in a fresh checkout: the folder is made, as review makes its own.
    await fs.mkdir(path.dirname(out), { recursive: true });
    const client = clientFor(settings);
    try {
      const { file, bytes } = await client.downloadProof(orderId, out, {
        ...(options.recipient ? { recipientId: options.recipient } : {}),
      });
      say(`wrote ${path.relative(process.cwd(), file) || file} (${bytes} bytes)`);
      say(`(${settings.from})`);
    } finally {
      await client.close();
    }
  });
}
