import * as path from "node:path";
import { type Command, InvalidArgumentError } from "commander";
import { DirectMailClient } from "../provider/api/client";
import { resolveSettings } from "../provider/settings";

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError("expected a positive whole number");
  return n;
}

/** A client for DIRECTMAIL_BASE_URL / DIRECTMAIL_API_KEY (the sandbox when no address is set). */
function clientFromEnvironment(): DirectMailClient {
  const { baseUrl, apiKey } = resolveSettings(undefined);
  if (!apiKey) {
    throw new Error(
      `no API key for ${baseUrl}: set DIRECTMAIL_API_KEY (and DIRECTMAIL_BASE_URL for another service)`,
    );
  }
  return new DirectMailClient({ baseUrl, apiKey });
}

/**
 * `directmail whoami` and `directmail proof`: the two service calls a reviewer of a campaign needs
 * by hand, confirming which account a key belongs to and looking at a draft's proof.
 */
export function registerServiceCommands(program: Command): void {
  program
    .command("whoami")
    .description(
      "Show the account of DIRECTMAIL_API_KEY at DIRECTMAIL_BASE_URL (default: the local sandbox).",
    )
    .action(async () => {
      const client = clientFromEnvironment();
      try {
        const profile = await client.me();
        console.log(
          `${profile.email} (${profile.firstName} ${profile.lastName}, ${profile.company}) at ${client.baseUrl}`,
        );
      } finally {
        await client.close();
      }
    });
  program
    .command("proof")
    .description("Save the proof PDF of an order: its first mailable recipient, or --recipient.")
    .argument("<orderId>", "the order", positiveInt)
    .option("--recipient <id>", "a recipient of that order", positiveInt)
    .option("--out <file>", "where to write the PDF", "proof.pdf")
    .action(async (orderId: number, options: { recipient?: number; out: string }) => {
      const client = clientFromEnvironment();
      try {
        const { file, bytes } = await client.downloadProof(orderId, path.resolve(options.out), {
          ...(options.recipient ? { recipientId: options.recipient } : {}),
        });
        console.log(`wrote ${path.relative(process.cwd(), file) || file} (${bytes} bytes)`);
      } finally {
        await client.close();
      }
    });
}
