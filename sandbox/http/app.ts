import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import type { z } from "zod";
import { ErrorEnvelope, errorEnvelopeFor, type Profile } from "../../provider/api/schemas";
import { exactDepth } from "../../provider/api/schemas/exact-check";
import { MAX_BODY_BYTES, MAX_JSON_DEPTH } from "../assumptions";
import { ApiError } from "../domain/errors";
import { type ControlParts, controlRoutes } from "./control-routes";
import { envelope } from "./envelope";
import { httpLayerError, unknownRoute, unsupportedMediaType } from "./errors";
import type { Fault } from "./faults";
import { apiRefusal, controlRefusal, isControlRequest } from "./local-callers";
import { redactUrl } from "./log-redaction";
import "./request";
import type { V1Parts } from "./v1-handlers";
import { v1Routes } from "./v1-routes";
import { serialize, takenAsItIs } from "./zod";

export interface AppParts {
  v1: V1Parts;
  control: ControlParts;
  log: (line: string) => void;
  /** false: no line per request (errors are still logged). */
  requestLog: boolean;
}

/**
 * Whether a parsed JSON value nests arrays and objects deeper than `limit`. V8's JSON.parse is not
 * recursive, so the check runs on the value: it visits each node at most once and stops at the
 * first one too deep, so the recursion is at most `limit` calls deep (a scan of the text visited
 * every character of a 4 MB append).
 */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (limit === 0) return true;
  // Leaves are skipped here rather than by a call each (a 4 MB append has about 200,000 of them).
  if (Array.isArray(value)) {
    for (const item of value)
      if (typeof item === "object" && item !== null && nestsDeeperThan(item, limit - 1)) return true;
  } else {
    for (const key in value) {
      const item = (value as Record<string, unknown>)[key];
      if (typeof item === "object" && item !== null && nestsDeeperThan(item, limit - 1)) return true;
    }
  }
  return false;
}

/** The body of an error answer the HTTP layer gives by itself, written through the error envelope's schema. */
const httpErrorText = (errorCode: string, messages: string[]) =>
  serialize(ErrorEnvelope, envelope(null, null, { errorCode, errors: messages }), "an error answer");

/** Answers on a socket Node could not parse a request from: the envelope, then the connection ends. */
function sendRawError(socket: Duplex, error: ApiError): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = httpErrorText(error.errorCode, error.messages);
  socket.end(
    `HTTP/1.1 ${error.statusCode} ${STATUS_CODES[error.statusCode] ?? "Bad Request"}\r\n` +
      "Content-Type: application/json; charset=utf-8\r\n" +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** A request's path, without its query. */
function pathOf(url: string): string {
  const query = url.indexOf("?");
  return query === -1 ? url : url.slice(0, query);
}

const faultBody = (fault: Fault) =>
  httpErrorText(fault.status === 429 ? "RATE_LIMITED" : "SANDBOX_FAULT", [
    `fault ${fault.id} injected by the sandbox control API (status ${fault.status})`,
  ]);

function faultHeaders(reply: FastifyReply, fault: Fault): void {
  reply.code(fault.status ?? 500);
  reply.header("content-type", "application/json; charset=utf-8");
  if (fault.status === 429) reply.header("retry-after", String(fault.retryAfterSeconds ?? 1));
}

/** Whether a fault's status answers without a body. */
const bodiless = (fault: Fault) => fault.status === 403 || fault.status === 204;

/**
 * The HTTP server in front of the domain: JSON bodies only, faults and timed work before each
 * request, every error as the envelope, and the v1 and control routes as plugins.
 */
export function buildApp(parts: AppParts): FastifyInstance {
  // The server itself reads an error's profile, runs timed work and injects faults before each request.
  const { accounts } = parts.v1;
  const { faults, scheduler, clock } = parts.control;
  const log = parts.log;

  const sendError = (request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply => {
    let profile: Profile | null = null;
    try {
      profile = request.account ? accounts.profile(request.account) : null;
    } catch {
      // The failure being reported may be the profile itself: answer without it.
    }
    if (error instanceof ApiError) {
      let text: string;
      try {
        text = serialize(
          errorEnvelopeFor(error.statusCode),
          envelope(profile, error.payload, {
            errorCode: error.errorCode,
            errors: error.messages,
            errorDetails: error.errorDetails,
          }),
          `the ${error.statusCode} answer of ${request.method} ${request.url.split("?")[0]}`,
        );
      } catch (failure) {
        // Never fastify's own error body: a payload that cannot be written is a server failure.
        return sendError(request, reply, failure);
      }
      return reply
        .code(error.statusCode)
        .headers(error.headers)
        .type("application/json; charset=utf-8")
        .send(text);
    }
    const status = (error as { statusCode?: number }).statusCode;
    if (typeof status === "number" && status >= 400 && status < 500) {
      // fastify's own client errors (media type, body too large, bad URL) under documented codes.
      return sendError(request, reply, httpLayerError(error as Error, request.headers["content-type"]));
    }
    log(
      `error on ${request.method} ${request.url.split("?")[0]}: ${(error as Error)?.stack ?? String(error)}`,
    );
    const internal = (shown: Profile | null) =>
      serialize(
        ErrorEnvelope,
        envelope(shown, null, { errorCode: "INTERNAL_ERROR", errors: ["unexpected server failure"] }),
        "an error answer (500)",
      );
    let text: string;
    try {
      text = internal(profile);
    } catch {
      // The profile is what failed its schema: answer without it.
      text = internal(null);
    }
    return reply.code(500).type("application/json; charset=utf-8").send(text);
  };

  const app = Fastify({
    logger: false,
    bodyLimit: MAX_BODY_BYTES,
    forceCloseConnections: true,
    // A request without Host reaches the caller checks (local-callers.ts), which answer it as they
    // answer a foreign Host (the envelope on /v1), instead of Node's bare 400.
    http: { requireHostHeader: false },
    // A path fastify cannot decode: the envelope, not fastify's own body.
    frameworkErrors: (error, request, reply) => sendError(request, reply, error),
    // A request Node cannot parse (bad header, headers too large): the envelope on the raw socket.
    clientErrorHandler: (error, socket) => sendRawError(socket, httpLayerError(error)),
  });

  // JSON is the only body format (spec); fastify's own text/plain parser would let text through.
  app.removeAllContentTypeParsers();
  // An empty body of any type (a DELETE from many clients) is no body; any other body is a 415.
  // Empty however it is framed: `Content-Length: 0`, no length at all (HTTP/1.1: no body), or a
  // chunked body of no chunk. The 415 comes with the first byte, without reading the rest.
  app.addContentTypeParser("*", (request, payload, done) => {
    const refusal = () => unsupportedMediaType(request.headers["content-type"]);
    const length = request.headers["content-length"];
    if (length !== undefined && length !== "0") return done(refusal(), undefined);
    let settled = false;
    const settle = (error: Error | null) => {
      if (settled) return;
      settled = true;
      payload.pause();
      done(error, undefined);
    };
    payload.once("data", () => settle(refusal()));
    payload.once("end", () => settle(null));
    payload.once("error", settle);
  });
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, text, done) => {
    const source = String(text);
    if (source.trim() === "") return done(null, undefined);
    let value: unknown;
    try {
      value = JSON.parse(source);
    } catch (error) {
      return done(
        new ApiError(400, "INVALID_JSON", [`body: not valid JSON (${(error as Error).message})`]),
        undefined,
      );
    }
    // Kept as it came: its schema drops what it does not know, and the bounds hold for what was sent.
    request.receivedBody = value;
    // A body its route's schema takes as it stands (its exact check, which the validation then reads
    // instead of running again) has the schema's shape: it nests no deeper than the schema does.
    const schema = request.routeOptions.schema?.body as z.ZodType | undefined;
    if (schema && exactDepth(schema) <= MAX_JSON_DEPTH && takenAsItIs(schema, value))
      return done(null, value);
    if (nestsDeeperThan(value, MAX_JSON_DEPTH)) {
      return done(
        new ApiError(400, "INVALID_JSON", [
          `body: arrays and objects nested deeper than ${MAX_JSON_DEPTH} levels; no request of this service needs more than a few`,
        ]),
        undefined,
      );
    }
    done(null, value);
  });

  // One hook a phase, each in callback form: every request passes them, and a promise a hook (its
  // allocation and a turn of the microtask queue each) was a good part of a small request's cost.
  app.addHook("onRequest", (request, reply, done) => {
    if (parts.requestLog) request.startedAt = process.hrtime.bigint();
    // Before anything runs: a web page (a cross-site form or fetch, a rebound DNS name) is refused.
    if (isControlRequest(request)) {
      const refusal = controlRefusal(request);
      if (refusal) {
        reply.code(refusal.status).send({ error: refusal.message });
        return;
      }
      // The control API is never faulted, but what it reads (the ledger) is as current as the API.
      scheduler.tick();
    } else {
      const refusal = apiRefusal(request);
      if (refusal) throw new ApiError(refusal.status, refusal.errorCode, [refusal.message]);
      const fault = faults.take(request.method, pathOf(request.url));
      if (fault && !fault.after) {
        if (fault.kind === "delay") {
          // Waited once the body is in (preHandler): a request received in full runs after the
          // delay even when its client has given up meanwhile, as on a slow service.
          request.fault = fault;
        } else if (fault.kind === "reset") {
          request.raw.socket.destroy();
          reply.hijack();
          return;
        } else {
          faultHeaders(reply, fault);
          reply.send(bodiless(fault) ? undefined : faultBody(fault));
          return;
        }
      } else if (fault) {
        request.fault = fault;
      }
      // Bring timed work (settlement, production, scans, ...) up to the clock before reading.
      scheduler.tick();
    }
    // A path or method the table does not have is answered before fastify reads a body, so the
    // answer is 404 or 405 whatever the body (fastify would first refuse a QUERY without a type).
    if (request.is404) throw unknownRoute(request.method, request.url);
    done();
  });

  app.addHook("preHandler", (request, _reply, done) => {
    const fault = request.fault;
    if (fault?.kind !== "delay" || fault.after) {
      done();
      return;
    }
    request.fault = undefined;
    // A failure of the tick is the request's (the error handler's 500), as in an async hook.
    sleep(fault.delayMs ?? 0)
      .then(() => scheduler.tick())
      .then(() => done(), done);
  });

  app.addHook("onSend", (request, reply, payload, done) => {
    // The service's clock, as a real service's answers carry theirs: what the provider takes for
    // "this month" follows the sandbox clock when a test advances it.
    reply.header("date", clock.httpDate());
    const fault = request.fault;
    if (!fault?.after) {
      done(null, payload);
      return;
    }
    request.fault = undefined;
    if (fault.kind === "delay") {
      sleep(fault.delayMs ?? 0).then(() => done(null, payload), done);
      return;
    }
    if (fault.kind === "reset") {
      // The request took effect; the client never hears so.
      request.raw.socket.destroy();
      done(null, payload);
      return;
    }
    faultHeaders(reply, fault);
    done(null, bodiless(fault) ? "" : faultBody(fault));
  });

  if (parts.requestLog) {
    // One line per request: time, method, path and query (keys masked), status, duration.
    app.addHook("onResponse", async (request, reply) => {
      const ms = request.startedAt ? Number(process.hrtime.bigint() - request.startedAt) / 1e6 : 0;
      // The control API takes apiKey in its query: never log a key, however its name is encoded.
      const url = redactUrl(request.url);
      log(`${new Date().toISOString()} ${request.method} ${url} ${reply.statusCode} ${ms.toFixed(1)}ms`);
    });
  }

  app.setErrorHandler((error, request, reply) => sendError(request, reply, error));
  app.setNotFoundHandler((request) => {
    throw unknownRoute(request.method, request.url);
  });

  app.register(controlRoutes, { prefix: "/_sandbox", ...parts.control });
  app.register(v1Routes, parts.v1);
  return app;
}
