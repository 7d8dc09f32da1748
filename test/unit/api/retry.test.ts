import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import {
  backoffDelay,
  DEFAULT_RETRY,
  outcomeUnknown,
  parseRetryAfter,
  RETRY_TABLE,
  shouldRetry,
} from "../../../provider/api/core/retry";
import { endpoints, operations } from "../../../provider/api/endpoints";

const doc = fs.readFileSync(path.resolve(__dirname, "../../../docs/retry-policy.md"), "utf8");

function tableRows(heading: string): string[][] {
  const section = doc.slice(doc.indexOf(heading));
  const lines = section.split("\n").slice(1);
  const start = lines.findIndex((l) => l.startsWith("|"));
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(
      line
        .slice(1, -1)
        .split("|")
        .map((c) => c.trim()),
    );
  }
  return rows;
}

describe("docs/retry-policy.md states the code's policy", () => {
  it("the class table matches RETRY_TABLE", () => {
    const rows = tableRows("## Retry classes");
    expect(rows.map((r) => r[0])).toEqual(Object.keys(RETRY_TABLE).map((k) => `\`${k}\``));
    for (const [cls, notSent, network, timeout, s429, s5xx] of rows) {
      const row = RETRY_TABLE[(cls ?? "").replace(/`/g, "") as keyof typeof RETRY_TABLE];
      const says = (cell: string | undefined) => cell === "retry";
      expect([says(notSent), says(network), says(timeout), says(s429), says(s5xx)], cls).toEqual([
        row.notSent,
        row.networkAfterSend,
        row.timeoutAfterSend,
        row.status429,
        row.status5xx,
      ]);
    }
  });

  it("the per-operation table lists every operation with its method, path and class", () => {
    const rows = tableRows("## Per operation");
    expect(rows).toHaveLength(operations.length);
    for (const [entry, op, methodPath, cls] of rows) {
      const def = endpoints[(op ?? "").replace(/`/g, "") as keyof typeof endpoints];
      expect(def, op).toBeDefined();
      expect(String(def.entry)).toBe(entry);
      expect(methodPath).toBe(`${def.method} ${def.path}`);
      expect(cls).toBe(`\`${def.retry}\``);
    }
  });
});

describe("retry decisions", () => {
  it("never retries a checkout that may have reached the service", () => {
    for (const failure of [
      { kind: "network", sent: true },
      { kind: "timeout", sent: true },
      { kind: "status", status: 500 },
      { kind: "status", status: 503 },
      { kind: "status", status: 429 },
    ] as const) {
      expect(shouldRetry("checkout", failure)).toBe(false);
    }
    expect(shouldRetry("checkout", { kind: "network", sent: false })).toBe(true);
  });

  it("marks the outcome unknown only for unsafe classes and failures after sending", () => {
    expect(outcomeUnknown("checkout", { kind: "status", status: 502 })).toBe(true);
    expect(outcomeUnknown("unsafe", { kind: "status", status: 502 })).toBe(false);
    expect(outcomeUnknown("unsafe", { kind: "network", sent: true })).toBe(true);
    expect(outcomeUnknown("unsafe", { kind: "network", sent: false })).toBe(false);
    expect(outcomeUnknown("read", { kind: "timeout", sent: true })).toBe(false);
    expect(outcomeUnknown("retryable-500", { kind: "timeout", sent: true })).toBe(true);
  });

  it("4xx other than 429 are never retried", () => {
    for (const cls of Object.keys(RETRY_TABLE) as (keyof typeof RETRY_TABLE)[]) {
      for (const status of [400, 401, 402, 403, 404, 422]) {
        expect(shouldRetry(cls, { kind: "status", status })).toBe(false);
      }
    }
  });
});

describe("backoff", () => {
  it("grows exponentially with equal jitter, capped", () => {
    const options = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 1000 };
    expect(backoffDelay(1, options, () => 0)).toBe(50);
    expect(backoffDelay(1, options, () => 1)).toBe(100);
    expect(backoffDelay(3, options, () => 0)).toBe(200);
    expect(backoffDelay(3, options, () => 1)).toBe(400);
    expect(backoffDelay(10, options, () => 1)).toBe(1000);
    expect(backoffDelay(10, options, () => 0)).toBe(500);
  });

  it("reads Retry-After as seconds or an HTTP date", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter("3", now)).toBe(3000);
    expect(parseRetryAfter(["0"], now)).toBe(0);
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:05 GMT", now)).toBe(5000);
    expect(parseRetryAfter("Wed, 31 Dec 2025 23:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
