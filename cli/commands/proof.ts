import * as fs from "node:fs/promises";
import * as path from "node:path";
import { type Command, InvalidArgumentError } from "commander";
import { say } from "../output";
import { type StackOptions, withStackOptions } from "../stack/options";
import { serviceSettings, withClient } from "../stack/settings";

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError("expected a positive whole number");
  return n;
}

/**
 * `directmail proof`: a draft's proof PDF, a service call a reviewer of a campaign needs by hand.
 * Inside a Pulumi project it uses the selected stack's configuration (see cli/stack/settings.ts).
 */
export function registerProofCommand(program: Command): void {
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
    const { file, bytes } = await withClient(settings, (client) =>
      client.downloadProof(orderId, out, {
        ...(options.recipient ? { recipientId: options.recipient } : {}),
      }),
    );
    say(`wrote ${path.relative(process.cwd(), file) || file} (${bytes} bytes)`);
    say(`(${settings.from})`);
  });
}
