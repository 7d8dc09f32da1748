import * as net from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { providerHostEngineAddress, watchEngine } from "../../../provider/resources/engine-watch";

describe("providerHostEngineAddress", () => {
  const script = "/p/node_modules/@pulumi/pulumi/cmd/dynamic-provider/index.js";

  it("is the last argument of Pulumi's dynamic-provider process", () => {
    expect(providerHostEngineAddress(["node", script, "127.0.0.1:40123"])).toBe("127.0.0.1:40123");
    expect(
      providerHostEngineAddress([
        "node",
        script.replace("/index.js", ""),
        "--logtostderr",
        "-v=9",
        "127.0.0.1:9",
      ]),
    ).toBe("127.0.0.1:9");
  });

  it("is undefined in any other process, or without an address", () => {
    expect(providerHostEngineAddress(["node", "/p/node_modules/vitest/vitest.mjs", "127.0.0.1:40123"])).toBe(
      undefined,
    );
    expect(providerHostEngineAddress(["node", "/p/node_modules/@pulumi/pulumi/cmd/run", "127.0.0.1:1"])).toBe(
      undefined,
    );
    expect(providerHostEngineAddress(["node", script])).toBe(undefined);
    expect(providerHostEngineAddress(["node", script, "--logtostderr"])).toBe(undefined);
  });
});

describe("watchEngine", () => {
  it("reports the engine gone once its address refuses connections, and not before", async () => {
    const accepted: net.Socket[] = [];
    const engine = net.createServer((socket) => accepted.push(socket));
    await new Promise<void>((resolve) => engine.listen(0, "127.0.0.1", resolve));
    const { port } = engine.address() as net.AddressInfo;
    let gone = 0;
    const stop = watchEngine(`127.0.0.1:${port}`, () => gone++, 50);
    try {
      await sleep(400);
      expect(gone).toBe(0);
      // Each probe connects and closes at once, the way a TCP health prober does.
      expect(accepted.length).toBeGreaterThan(2);
      for (const socket of accepted) socket.destroy();
      await new Promise((resolve) => engine.close(resolve));
      const closedAt = Date.now();
      while (gone === 0 && Date.now() - closedAt < 5000) await sleep(20);
      expect(gone).toBe(1);
      await sleep(200);
      expect(gone).toBe(1); // reported once
    } finally {
      stop();
    }
  });
});
