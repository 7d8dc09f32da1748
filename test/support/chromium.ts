/**
 * A real headless browser for tests: Debian's Chromium, driven with playwright-core (which
 * downloads no browser of its own). `.ci/run` installs the package before the tests; a machine
 * without it gets it here, through apt-get, as CI does (both run as root).
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import { type Browser, chromium } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";

/** Installs Debian's chromium package when it is missing; minutes on a fresh machine, nothing after. */
export function ensureChromium(): string {
  if (fs.existsSync(CHROMIUM)) return CHROMIUM;
  try {
    execFileSync(
      "bash",
      [
        "-c",
        "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium",
      ],
      { stdio: ["ignore", "ignore", "pipe"], timeout: 900_000 },
    );
  } catch (error) {
    const stderr = String((error as { stderr?: Buffer }).stderr ?? "").trim();
    throw new Error(
      `Chromium (${CHROMIUM}) is missing and \`apt-get install chromium\` failed: ${stderr || (error as Error).message}; ` +
        "install Debian's chromium package (as root) and run the tests again",
    );
  }
  if (!fs.existsSync(CHROMIUM)) throw new Error(`apt-get installed chromium, but ${CHROMIUM} is not there`);
  return CHROMIUM;
}

/** A headless Chromium; as root it needs --no-sandbox (CI and these machines run as root). */
export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: ensureChromium(),
    headless: true,
    args: process.getuid?.() === 0 ? ["--no-sandbox"] : [],
  });
}
