import type { Command } from "commander";
import { oneLine } from "../../provider/text";
import { say } from "../output";
import { type StackOptions, withStackOptions } from "../stack/options";
import { serviceSettings, withClient } from "../stack/settings";

/**
 * `directmail whoami`: which account a key belongs to, a service call a reviewer of a campaign
 * needs by hand. Inside a Pulumi project it uses the selected stack's configuration (see
 * cli/stack/settings.ts).
 */
export function registerWhoamiCommand(program: Command): void {
  withStackOptions(
    program
      .command("whoami")
      .description(
        "Show the account the commands use: the selected stack's directmail:baseUrl and directmail:apiKey " +
          "inside a Pulumi project, else DIRECTMAIL_BASE_URL and DIRECTMAIL_API_KEY (default: the local sandbox).",
      ),
  ).action(async (options: StackOptions) => {
    const settings = await serviceSettings(options);
    const profile = await withClient(settings, (client) => client.me());
    say(
      // Each field on the line: a profile cannot add a line of its own.
      `${oneLine(profile.email)} (${oneLine(profile.firstName)} ${oneLine(profile.lastName)}, ${oneLine(profile.company)}) at ${settings.baseUrl}`,
    );
    say(`(${settings.from})`);
  });
}
