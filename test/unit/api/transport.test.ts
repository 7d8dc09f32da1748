/**
 * The client over real sockets on loopback, with servers that misbehave in the ways a real network
 * does: dropping the connection after reading the request, never answering, refusing connections,
 * cutting a body short. Also proves connection reuse (which needs every body read to the end).
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { DirectMailClient, type DirectMailClientOptions } from "../../../provider/api/client";
import {
  AbortedError,
  CheckoutOutcomeUnknownError,
  DirectMailError,
  ForbiddenError,
  NetworkError,
  TimeoutError,
  ValidationError,
} from "../../../provider/api/errors";
import * as F from "./fixtures";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()?.();
});

function client(port: number, options: Partial<DirectMailClientOptions> = {}) {
  const c = new DirectMailClient({
    baseUrl: `http://127.0.0.1:${port}`,
    apiKey: F.API_KEY,
    retry: { baseDelayMs: 1, maxDelayMs: 4 },
    ...options,
  });
  closers.push(() => c.close());
  return c;
}

/** A raw TCP server: `onRequest` gets the socket once a whole request (headers + body) has arrived. */
async function rawServer(onRequest: (socket: net.Socket, head: string) => void) {
  let requests = 0;
  const server = net.createServer((socket) => {
    let buffer = "";
    socket.on("data", (chunk) => {
      buffer += chunk.toString("latin1");
      for (;;) {
        const end = buffer.indexOf("\r\n\r\n");
        if (end < 0) return;
        const head = buffer.slice(0, end);
        const length = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
        if (buffer.length < end + 4 + length) return;
        buffer = buffer.slice(end + 4 + length);
        requests++;
        onRequest(socket, head);
      }
    });
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const sockets = new Set<net.Socket>();
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  return { port: (server.address() as AddressInfo).port, requests: () => requests };
}

async function caught(promise: Promise<unknown>): Promise<DirectMailError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DirectMailError) return error;
    throw error;
  }
  throw new Error("expected the call to fail");
}

const checkoutBody = { postageType: "Standard", productionSpeed: "Normal" } as const;

describe("connection dropped after the request was written", () => {
  it("checkout is sent exactly once and reported as outcome unknown", async () => {
    const server = await rawServer((socket) => socket.destroy());
    const error = await caught(
      client(server.port, { retry: { maxAttempts: 10 } }).checkout(12, checkoutBody),
    );
    expect(error).toBeInstanceOf(CheckoutOutcomeUnknownError);
    expect(error.message).toMatch(/^checkout of order 12: outcome unknown/);
    expect(error.message).not.toContain(F.API_KEY);
    expect(server.requests()).toBe(1);
  });

  it("a read on the same fault is retried until the attempts run out", async () => {
    const server = await rawServer((socket) => socket.destroy());
    const error = await caught(client(server.port, { retry: { maxAttempts: 3, baseDelayMs: 1 } }).me());
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).sent).toBe(true);
    expect(error.attempts).toBe(3);
    expect(server.requests()).toBe(3);
  });

  it("a body cut short is a network failure, and a read retries it", async () => {
    let n = 0;
    const body = JSON.stringify(F.envelope(F.profile));
    const server = await rawServer((socket) => {
      n++;
      const head = `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`;
      if (n === 1) {
        socket.write(head + body.slice(0, 20));
        setTimeout(() => socket.destroy(), 20);
      } else socket.write(head + body);
    });
    await expect(client(server.port).me()).resolves.toEqual(F.profile);
    expect(server.requests()).toBe(2);
  });
});

describe("timeouts", () => {
  it("a read times out per attempt and retries", async () => {
    const server = await rawServer(() => undefined);
    const error = await caught(client(server.port, { timeoutMs: 100, retry: { maxAttempts: 2 } }).me());
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.message).toBe("GET /v1/me: no complete response within 100 ms");
    expect(server.requests()).toBe(2);
  });

  it("a checkout that times out is sent once and reported as outcome unknown", async () => {
    const server = await rawServer(() => undefined);
    const error = await caught(
      client(server.port, { timeoutMs: 100, retry: { maxAttempts: 5 } }).checkout(12, checkoutBody),
    );
    expect(error).toBeInstanceOf(CheckoutOutcomeUnknownError);
    expect(error.cause).toBeInstanceOf(TimeoutError);
    expect(server.requests()).toBe(1);
  });
});

describe("connection refused (nothing sent)", () => {
  async function closedPort(): Promise<number> {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    return port;
  }

  it("is a NetworkError with sent=false; even a checkout is retried, since it never left", async () => {
    const port = await closedPort();
    const events: number[] = [];
    const error = await caught(
      client(port, { retry: { maxAttempts: 3 }, onEvent: (e) => events.push(e.attempt) }).checkout(
        12,
        checkoutBody,
      ),
    );
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).not.toBeInstanceOf(CheckoutOutcomeUnknownError);
    expect((error as NetworkError).sent).toBe(false);
    expect((error as NetworkError).code).toBe("ECONNREFUSED");
    expect(events).toEqual([1, 2, 3]);
  });
});

describe("cancellation mid-request", () => {
  it("a read is aborted; a checkout in flight becomes outcome unknown", async () => {
    const server = await rawServer(() => undefined);
    const c = client(server.port);
    const read = new AbortController();
    setTimeout(() => read.abort(), 50);
    expect(await caught(c.me({ signal: read.signal }))).toBeInstanceOf(AbortedError);
    const pay = new AbortController();
    setTimeout(() => pay.abort(), 50);
    const error = await caught(c.checkout(12, checkoutBody, { signal: pay.signal }));
    expect(error).toBeInstanceOf(CheckoutOutcomeUnknownError);
    expect(error.cause).toBeInstanceOf(AbortedError);
    expect(server.requests()).toBe(2);
  });
});

describe("connection reuse", () => {
  it("one connection serves successes, JSON errors, empty 403s and PDFs: every body is consumed", async () => {
    let connections = 0;
    const big = "x".repeat(256 * 1024);
    const server = http.createServer((req, res) => {
      const send = (status: number, body: string | Buffer, type = "application/json") => {
        res.writeHead(status, { "content-type": type, "content-length": Buffer.byteLength(body) });
        res.end(body);
      };
      if (req.url === "/v1/me") send(200, JSON.stringify(F.envelope(F.profile)));
      else if (req.url?.startsWith("/v1/order/12/proof")) send(200, F.PDF, "application/pdf");
      else if (req.url === "/v1/integration-orders") send(403, "");
      else send(400, JSON.stringify(F.errorEnvelope("BAD", [big])));
      req.resume();
    });
    server.keepAliveTimeout = 5000;
    server.on("connection", () => connections++);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    server.closeIdleConnections();
    const c = client((server.address() as AddressInfo).port, { connections: 1, timeoutMs: 2000 });
    for (let i = 0; i < 5; i++) {
      await c.me();
      expect(await caught(c.deleteOrder(12))).toBeInstanceOf(ValidationError);
      expect(await caught(c.listIntegrationOrders())).toBeInstanceOf(ForbiddenError);
      expect((await c.getProof(12)).length).toBe(F.PDF.length);
    }
    expect(connections).toBe(1);
    await c.close();
    server.closeAllConnections();
  });
});
