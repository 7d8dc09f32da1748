/** Where the provider sends its requests, and whether that is the local sandbox (nothing costs money). */
import { describe, expect, it } from "vitest";
import {
  DEFAULT_SANDBOX_URL,
  isLocalSandbox,
  resolveBaseUrl,
  SETTING_KEYS,
  unknownSettingKey,
} from "../../../provider/settings";

describe("resolveBaseUrl", () => {
  it("takes the stack config first, then DIRECTMAIL_BASE_URL, then the local sandbox", () => {
    const env = { DIRECTMAIL_BASE_URL: "https://env.example.com/" };
    expect(resolveBaseUrl("https://api.example.com/", env)).toEqual({
      baseUrl: "https://api.example.com",
      baseUrlSource: "config",
    });
    expect(resolveBaseUrl("  ", env)).toEqual({
      baseUrl: "https://env.example.com",
      baseUrlSource: "environment",
    });
    expect(resolveBaseUrl(undefined, {})).toEqual({ baseUrl: DEFAULT_SANDBOX_URL, baseUrlSource: "default" });
  });
});

describe("isLocalSandbox", () => {
  it("is true for this machine's loopback addresses only", () => {
    for (const url of [
      DEFAULT_SANDBOX_URL,
      "http://127.0.0.1:41234",
      "http://127.1.2.3",
      "http://localhost:4010",
      "http://LOCALHOST",
      "http://sandbox.localhost:4010",
      "http://[::1]:4010",
    ]) {
      expect(isLocalSandbox(url), url).toBe(true);
    }
    for (const url of [
      "https://api.example.com",
      "http://192.0.2.2:4010",
      "http://10.0.0.1",
      "http://127.0.0.1.example.com",
      "http://localhost.example.com",
      "http://[::2]",
      "not a url",
    ]) {
      expect(isLocalSandbox(url), url).toBe(false);
    }
  });
});

describe("unknownSettingKey", () => {
  it("names a directmail key that is not a setting, with the setting it resembles and the fix", () => {
    expect(
      unknownSettingKey(["directmail:apiKey", "other:key", "directmail:monthlybudget"], { stack: "dev" })
        ?.message,
    ).toBe(
      "directmail:monthlybudget is not a setting of pulumi-directmail (did you mean directmail:monthlyBudget?): " +
        "remove it with `pulumi config rm directmail:monthlybudget --stack dev` and set directmail:monthlyBudget instead. " +
        "Its settings are directmail:apiKey, directmail:baseUrl and directmail:monthlyBudget.",
    );
    expect(unknownSettingKey(["directmail:baseURL"])?.message).toContain(
      "(did you mean directmail:baseUrl?)",
    );
    expect(unknownSettingKey(["directmail:apikey2"])?.message).toContain("(did you mean directmail:apiKey?)");
    expect(unknownSettingKey(["directmail:region"])?.message).toBe(
      "directmail:region is not a setting of pulumi-directmail: remove it with `pulumi config rm directmail:region`. " +
        "Its settings are directmail:apiKey, directmail:baseUrl and directmail:monthlyBudget.",
    );
  });

  it("passes the settings and other packages' keys", () => {
    expect(unknownSettingKey([...SETTING_KEYS, "aws:region", "project:campaignsDir"])).toBeUndefined();
  });

  it("shows a hostile key cleaned and answers a huge one at once", () => {
    const message = unknownSettingKey([`directmail:\u001b[2J${"x".repeat(1_000_000)}`])?.message ?? "";
    expect(message).not.toContain("\u001b");
    expect(message).not.toContain("did you mean");
  });
});
