/** Where the provider sends its requests, and whether that is the local sandbox (nothing costs money). */
import { describe, expect, it } from "vitest";
import { DEFAULT_SANDBOX_URL, isLocalSandbox, resolveBaseUrl } from "../../../provider/settings";

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
