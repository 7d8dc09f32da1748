import * as fs from "node:fs/promises";
import * as path from "node:path";
import { type Command, InvalidArgumentError } from "commander";
import type { DirectMailClient } from "../../provider/api/client";
import { shown } from "../../provider/text";
import { say } from "../output";
import { type StackOptions, withStackOptions } from "../stack/options";
import { serviceSettings, withClient } from "../stack/settings";
import { recipientNamed } from "../stack/targets";

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
      .option(
        "--recipient <who>",
        'a recipient of that order: its id, "First Last" or an address line (as status --recipient)',
      )
      .option("--out <file>", "where to write the PDF", "proof.pdf"),
  ).action(async (orderId: number, options: StackOptions & { recipient?: string; out: string }) => {
    const settings = await serviceSettings(options);
    const out = path.resolve(options.out);
    // `--out proofs/draft.pdf` in a fresh checkout: the folder is made, as review makes its own.
    await fs.mkdir(path.dirname(out), { recursive: true });
    const { file, bytes } = await withClient(settings, async (client) => {
      const recipientId =
        options.recipient === undefined ? undefined : await recipientIdOf(client, orderId, options.recipient);
      return client.downloadProof(orderId, out, recipientId === undefined ? {} : { recipientId });
    });
    say(`wrote ${path.relative(process.cwd(), file) || file} (${bytes} bytes)`);
    say(`(${settings.from})`);
  });
}

/** The recipient `--recipient` names: an id as it is, else a name or an address line looked up in the order. */
async function recipientIdOf(client: DirectMailClient, orderId: number, who: string): Promise<number> {
  if (/^\s*\d+\s*$/.test(who)) return positiveInt(who.trim());
  const found = await recipientNamed(client, orderId, who);
  if (found === null) {
    throw new Error(
      `order ${orderId} has no recipient "${shown(who.trim())}": give a recipient's id, "First Last" as on ` +
        "the list, or its address line",
    );
  }
  return found.recipientId;
}
