/**
 * The transport: everything generic about calling one operation of the endpoint table over HTTP.
 *
 * - Requests are validated with the operation's schemas before anything is sent; JSON responses
 *   are parsed with its envelope schema.
 * - Connections are reused through one undici `Agent`; every response body is read or dumped, so
 *   no socket is left holding an unread body.
 * - Each attempt has a timeout; the caller's `AbortSignal` cancels the call (also while waiting to retry).
 * - Retries follow the operation's retry class (retry.ts, docs/retry-policy.md). A request that
 *   is not safe to repeat is never sent again once it may have reached the service.
 * - The API key lives in a private field; it is redacted from every error text and never logged.
 *
 * Nothing here knows a particular operation: what differs per operation is in the endpoint table.
 *
 * One class with one concern, the life of a call (validate, send, read, retry, fail); its contract
 * (the option, input and event types) is in transport-types.ts, its stateless rules in
 * transport-parts.ts, and where undici comes from in undici-loader.ts.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Dispatcher } from "undici";
import type { z } from "zod";
import { type EndpointDef, endpoints, fillPath, type OperationId, type PayloadOf } from "../endpoints";
import * as S from "../schemas";
import { withinDeadline } from "./deadline";
import {
  AbortedError,
  DirectMailError,
  type ErrorDetails,
  fromResponse,
  NetworkError,
  outcomeUnknownError,
  RequestValidationError,
  snippet,
  TimeoutError,
  UnexpectedResponseError,
  unreadableSuccessError,
} from "./errors";
import {
  backoffDelay,
  DEFAULT_RETRY,
  type Failure,
  outcomeUnknown,
  parseRetryAfter,
  type RetryOptions,
  shouldRetry,
} from "./retry";

import { dateHeader, errorCode, NOT_SENT_CODES, parseEnvelope, REDACTED, since } from "./transport-parts";
import type {
  CallInput,
  CallOptions,
  EnvelopeInfo,
  Reader,
  RequestEvent,
  TransportOptions,
} from "./transport-types";
import { undiciParts } from "./undici-loader";

export { loadUndiciWith, type UndiciParts } from "./undici-loader";

/** A prepared request: its operation, path, URL, body and order. */
interface Prepared {
  def: EndpointDef;
  path: string;
  url: string;
  body: string | Uint8Array | undefined;
  orderId: number | undefined;
}

export class Transport {
  readonly baseUrl: string;
  readonly #apiKey: string;
  /** The caller's dispatcher, or the client's own `Agent` once the first request needs it. */
  #dispatcher: Dispatcher | undefined;
  readonly #ownsDispatcher: boolean;
  readonly #agentOptions: { connections: number; connectTimeoutMs: number };
  readonly #timeoutMs: number;
  readonly #retry: RetryOptions;
  readonly #paths: Partial<Record<OperationId, string>>;
  readonly #invalidStatusCodes: ReadonlySet<string>;
  readonly #onEvent: ((event: RequestEvent) => void) | undefined;
  readonly #userAgent: string;
  readonly #random: () => number;
  #closed = false;

  constructor(options: TransportOptions) {
    let url: URL;
    try {
      url = new URL(options.baseUrl);
    } catch {
      throw new TypeError(`DirectMailClient: baseUrl '${options.baseUrl}' is not an absolute URL`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new TypeError(`DirectMailClient: baseUrl must be http(s), got '${url.protocol}'`);
    }
    if (url.username || url.password) {
      throw new TypeError("DirectMailClient: baseUrl must not carry credentials; pass apiKey instead");
    }
    if (typeof options.apiKey !== "string" || options.apiKey.trim() === "") {
      throw new TypeError("DirectMailClient: apiKey is required (a non-empty string)");
    }
    // A header value with control characters would make undici throw later, maybe echoing it.
    if (!/^[\x21-\x7e]+$/.test(options.apiKey)) {
      throw new TypeError("DirectMailClient: apiKey contains characters that cannot be sent in a header");
    }
    this.baseUrl = url.toString().replace(/\/+$/, "");
    this.#apiKey = options.apiKey;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#retry = { ...DEFAULT_RETRY, ...options.retry };
    if (!Number.isInteger(this.#retry.maxAttempts) || this.#retry.maxAttempts < 1) {
      throw new RangeError("DirectMailClient: retry.maxAttempts must be an integer >= 1");
    }
    this.#paths = { ...options.paths };
    this.#invalidStatusCodes = new Set(
      options.invalidStatusErrorCodes ?? [
        "INVALID_ORDER_STATUS",
        "INVALID_STATUS",
        "ORDER_NOT_DELETABLE_STATUS",
      ],
    );
    this.#onEvent = options.onEvent;
    this.#userAgent = `pulumi-directmail-client${options.userAgent ? ` ${options.userAgent}` : ""}`;
    this.#random = options.random ?? Math.random;
    this.#dispatcher = options.dispatcher;
    this.#ownsDispatcher = options.dispatcher === undefined;
    this.#agentOptions = {
      connections: options.connections ?? 8,
      connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
    };
  }

  /** The dispatcher of the next request: the client's own `Agent` is made by the first one. */
  #agent(): Dispatcher {
    if (!this.#dispatcher) {
      const agent = new (undiciParts().Agent)({
        connections: this.#agentOptions.connections,
        keepAliveTimeout: 10_000,
        connect: { timeout: this.#agentOptions.connectTimeoutMs },
      });
      // Closed before any request: a request now fails as one through a closed Agent does.
      if (this.#closed) void agent.close();
      this.#dispatcher = agent;
    }
    return this.#dispatcher;
  }

  /** Closes the transport's own connections (waits for calls in flight). Calling it again does nothing. */
  async close(): Promise<void> {
    if (!this.#ownsDispatcher || this.#closed) return;
    this.#closed = true;
    await this.#dispatcher?.close();
  }

  /** Calls a JSON operation and parses its envelope with the operation's schema. */
  async json<K extends OperationId>(
    op: K,
    input: CallInput,
    options: CallOptions | undefined,
  ): Promise<{ payload: PayloadOf<K>; envelope: EnvelopeInfo }> {
    const def = endpoints[op] as EndpointDef;
    if (def.response.kind !== "json") throw new Error(`${op} is not a JSON operation`);
    const { envelope: envelopeSchema, payload: payloadSchema } = def.response;
    return this.execute(op, input, options ?? {}, async (response, details) => {
      const text = await response.body.text();
      let data: unknown;
      try {
        data = JSON.parse(text);
      } catch {
        throw unreadableSuccessError(def, details, [`body is not JSON: ${snippet(this.#redact(text))}`]);
      }
      const parsed = parseEnvelope(envelopeSchema, payloadSchema, data);
      if (!parsed.success) {
        throw unreadableSuccessError(
          def,
          details,
          S.formatIssues(parsed.error.issues).map((m) => this.#redact(m)),
        );
      }
      const env = parsed.data as z.output<typeof S.ErrorEnvelope> & { payload: PayloadOf<K> };
      return {
        payload: env.payload,
        envelope: {
          errorCode: env.errorCode,
          errors: env.errors.map((m) => this.#redact(m)),
          warnings: env.warnings.map((m) => this.#redact(m)),
          hasErrors: env.hasErrors,
          hasWarnings: env.hasWarnings,
          metadata: env.metadata ?? {},
          answeredAt: dateHeader(response.headers.date),
        },
      };
    });
  }

  /** Refuses a 2xx that is not a PDF (a proof operation). */
  expectPdf(response: Dispatcher.ResponseData, details: ErrorDetails): void {
    const type = String(response.headers["content-type"] ?? "");
    if (!type.toLowerCase().startsWith("application/pdf")) {
      throw new UnexpectedResponseError(
        `${details.method} ${details.path}: expected application/pdf, got '${this.#redact(type) || "no content type"}'`,
        details,
      );
    }
  }

  /**
   * Runs one operation with its retry policy. `read` turns a 2xx response into the result; it must
   * consume the body. Error bodies are consumed here.
   */
  async execute<T>(op: OperationId, input: CallInput, callOptions: CallOptions, read: Reader<T>): Promise<T> {
    const signal = withinDeadline(callOptions.signal);
    const options: CallOptions = { ...callOptions, ...(signal ? { signal } : {}) };
    const prepared = this.#prepare(op, input);
    const { def, path } = prepared;
    const timeoutMs = options.timeoutMs ?? this.#timeoutMs;
    const headers: Record<string, string> = {
      "x-api-key": this.#apiKey,
      accept: def.response.kind === "pdf" ? "application/pdf, application/json" : "application/json",
      "user-agent": this.#userAgent,
    };
    // Every write says JSON, with a body or without: a sandbox on a network address refuses a write
    // without it (what a web page's form or no-cors fetch would send).
    if (prepared.body !== undefined || def.method !== "GET") headers["content-type"] = "application/json";

    for (let attempt = 1; ; attempt++) {
      const details: ErrorDetails = {
        operationId: op,
        method: def.method,
        path,
        orderId: prepared.orderId,
        attempts: attempt,
      };
      if (options.signal?.aborted) {
        // Nothing of this attempt was sent; an earlier attempt may have been (only retried ones, which are safe).
        throw new AbortedError(`${def.method} ${path}: cancelled before the request was sent`, details);
      }
      const started = performance.now();
      const event = { operationId: op, method: def.method, path, attempt };
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;

      let failure: Failure;
      let error: DirectMailError;
      let retryAfterMs: number | undefined;
      let response: Dispatcher.ResponseData | undefined;
      try {
        const url = new URL(prepared.url);
        response = await undiciParts().request(this.#agent(), {
          origin: url.origin,
          path: `${url.pathname}${url.search}`,
          method: def.method,
          headers,
          body: prepared.body ?? null,
          signal,
        });
        const status = response.statusCode;
        if (status >= 200 && status < 300) {
          const result = await read(response, { ...details, status });
          this.#emit({ ...event, status, durationMs: since(started) });
          return result;
        }
        retryAfterMs = parseRetryAfter(response.headers["retry-after"]);
        error = fromResponse({
          def,
          details: { ...details, status },
          body: await response.body.text().catch(() => ""),
          retryAfterMs,
          invalidStatusCodes: this.#invalidStatusCodes,
          redact: (text) => this.#redact(text),
        });
        failure = { kind: "status", status };
      } catch (thrown) {
        if (thrown instanceof DirectMailError) {
          // From `read`: the response arrived but is unusable; not a transport failure, not retried.
          this.#emit({
            ...event,
            ...(response ? { status: response.statusCode } : {}),
            durationMs: since(started),
            error: thrown.name,
          });
          throw thrown;
        }
        const transport = this.#transportError(thrown, details, options.signal, timeout, timeoutMs);
        if (transport instanceof AbortedError) {
          // The caller cancelled: never retry; for unsafe operations the outcome may be unknown.
          throw this.#final(def, { kind: "network", sent: true }, transport, details);
        }
        error = transport;
        failure =
          transport instanceof TimeoutError
            ? { kind: "timeout", sent: transport.sent }
            : { kind: "network", sent: (transport as NetworkError).sent };
      } finally {
        // No body left unread, whatever happened above.
        if (response && !response.body.bodyUsed) await response.body.dump().catch(() => undefined);
        else response?.body.destroy();
      }

      const tooLong = retryAfterMs !== undefined && retryAfterMs > this.#retry.maxRetryAfterMs;
      const again = attempt < this.#retry.maxAttempts && !tooLong && shouldRetry(def.retry, failure);
      const wait = again ? (retryAfterMs ?? backoffDelay(attempt, this.#retry, this.#random)) : undefined;
      this.#emit({
        ...event,
        ...(failure.kind === "status" ? { status: failure.status } : {}),
        durationMs: since(started),
        error: error.name,
        ...(wait !== undefined ? { retryInMs: wait } : {}),
      });
      if (wait === undefined) throw this.#final(def, failure, error, details);
      try {
        await sleep(wait, undefined, options.signal ? { signal: options.signal } : {});
      } catch {
        throw new AbortedError(`${def.method} ${path}: cancelled while waiting to retry`, {
          ...details,
          cause: error,
        });
      }
    }
  }

  /** The error a call ends with: for an operation that is not safe to repeat, maybe "outcome unknown". */
  #final(def: EndpointDef, failure: Failure, error: DirectMailError, details: ErrorDetails): DirectMailError {
    return outcomeUnknown(def.retry, failure) ? outcomeUnknownError(def, failure, error, details) : error;
  }

  #prepare(op: OperationId, input: CallInput): Prepared {
    const def = endpoints[op] as EndpointDef;
    const template = input.path ?? this.#paths[op] ?? def.path;
    const base: ErrorDetails = { operationId: op, method: def.method, path: template };
    const fail = (issues: z.core.$ZodIssue[], root: string) => {
      throw new RequestValidationError(
        S.formatIssues(issues, root).map((m) => this.#redact(m)),
        base,
      );
    };

    let params: Record<string, string | number> = {};
    if (def.pathParams) {
      const parsed = def.pathParams.safeParse(input.pathParams ?? {});
      if (!parsed.success) fail(parsed.error.issues, "");
      params = parsed.data as Record<string, number>;
    }
    const path = fillPath(template, params);

    let search = "";
    if (def.query) {
      const parsed = def.query.safeParse(input.query ?? {});
      if (!parsed.success) fail(parsed.error.issues, "query");
      const qs = new URLSearchParams();
      for (const [name, value] of Object.entries(parsed.data as Record<string, unknown>)) {
        if (value === undefined || value === null) continue;
        qs.append(input.queryNames?.[name] ?? name, String(value));
      }
      const text = qs.toString();
      if (text) search = `?${text}`;
    }

    let body: string | Uint8Array | undefined = input.serializedBody;
    const bodySchema = input.bodySchema ?? def.body;
    if (bodySchema && body === undefined) {
      const parsed = bodySchema.safeParse(input.body);
      if (!parsed.success) fail(parsed.error.issues, "body");
      body = JSON.stringify(parsed.data);
    }

    const fromBody = def.orderIdInBody
      ? (input.body as { orderId?: unknown } | undefined)?.orderId
      : undefined;
    const orderId =
      def.idKind === "order" && typeof params.id === "number"
        ? params.id
        : typeof fromBody === "number"
          ? fromBody
          : undefined;
    return { def, path, url: `${this.baseUrl}${path}${search}`, body, orderId };
  }

  /** Maps a thrown transport error (undici, abort) to a NetworkError, TimeoutError or AbortedError. */
  #transportError(
    thrown: unknown,
    details: ErrorDetails,
    callerSignal: AbortSignal | undefined,
    timeout: AbortSignal,
    timeoutMs: number,
  ): DirectMailError {
    const cause = this.#sanitize(thrown);
    const what = `${details.method} ${details.path}`;
    if (callerSignal?.aborted) {
      return new AbortedError(`${what}: cancelled by the caller`, { ...details, cause });
    }
    const code = errorCode(thrown);
    const sent = !(code !== undefined && NOT_SENT_CODES.has(code));
    if (timeout.aborted || code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT") {
      return new TimeoutError(
        `${what}: no complete response within ${timeoutMs} ms`,
        { ...details, cause },
        sent,
        code ?? "TIMEOUT",
      );
    }
    return new NetworkError(
      `${what}: ${sent ? "connection failed after the request was sent" : "could not connect"} (${code ?? "error"}: ${cause.message})`,
      { ...details, cause },
      sent,
      code,
    );
  }

  #emit(event: RequestEvent): void {
    if (!this.#onEvent) return;
    try {
      this.#onEvent(event);
    } catch {
      // A failing logger must not change the outcome of a call.
    }
  }

  #redact(text: string): string {
    return text.split(this.#apiKey).join(REDACTED);
  }

  /**
   * A copy of a thrown value that is safe to attach as `cause`: the key is cut out of its message
   * and stack, and nothing else of the original (request options, sockets) is kept.
   */
  #sanitize(thrown: unknown): Error {
    if (!(thrown instanceof Error)) return new Error(this.#redact(String(thrown)));
    const copy = new Error(this.#redact(thrown.message));
    copy.name = thrown.name;
    if (thrown.stack) copy.stack = this.#redact(thrown.stack);
    const code = errorCode(thrown);
    if (code) (copy as Error & { code?: string }).code = code;
    return copy;
  }
}
