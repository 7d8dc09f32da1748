/**
 * DirectMailClient: the only code that talks HTTP to the direct-mail service.
 *
 * - Every operation of the endpoint table is a typed method; requests are validated with the wire
 *   schemas before anything is sent, responses are parsed with them.
 * - Connections are reused through one undici `Agent`; every response body is read or dumped, so
 *   no socket is left holding an unread body.
 * - Each attempt has a timeout; the caller's `AbortSignal` cancels the call (also while waiting to retry).
 * - Retries follow the operation's retry class (retry.ts, docs/retry-policy.md). A request that
 *   is not safe to repeat is never sent again once it may have reached the service.
 * - The API key lives in a private field; it is redacted from every error text and never logged.
 */
import { randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import { rename, rm, stat, writeFile } from "node:fs/promises";
import { pipeline } from "node:stream/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { inspect } from "node:util";
import { Agent, type Dispatcher, request } from "undici";
import { z } from "zod";
import { type BatchOptions, type BatchReport, runBatches } from "./batching";
import { type EndpointDef, endpoints, fillPath, type OperationId, type PayloadOf } from "./endpoints";
import {
  AbortedError,
  CheckoutOutcomeUnknownError,
  DirectMailError,
  type ErrorDetails,
  ForbiddenError,
  InsufficientBalanceError,
  IntegrationRecipientRejectedError,
  InvalidStatusError,
  NetworkError,
  NotFoundError,
  OutcomeUnknownError,
  RateLimitedError,
  RequestValidationError,
  ResponseValidationError,
  ServerError,
  TimeoutError,
  UnauthenticatedError,
  UnexpectedResponseError,
  ValidationError,
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
import * as S from "./schemas";

export interface DirectMailClientOptions {
  /** Service base address, e.g. `http://127.0.0.1:4010` (paths start with `/v1`). */
  baseUrl: string;
  /** Sent as `X-API-KEY` on every call. Never logged, never part of an error message. */
  apiKey: string;
  /** Per-attempt timeout for JSON calls, connect to last body byte. Default 30 s. */
  timeoutMs?: number;
  /** Per-attempt timeout for proofs (PDF rendering is slower). Default 120 s. */
  proofTimeoutMs?: number;
  /** Connect timeout. Default 10 s. */
  connectTimeoutMs?: number;
  retry?: Partial<RetryOptions>;
  /** Most open connections per origin. Default 8. */
  connections?: number;
  /** A dispatcher to use instead of the client's own `Agent` (e.g. undici's `MockAgent`); not closed by `close()`. */
  dispatcher?: Dispatcher;
  /**
   * Path templates replacing the endpoint table's, per operation. Meant for the three the spec
   * does not show (`listTemplates`, `listFonts`, `getDeliveryStatus`), where a real deployment may differ.
   */
  paths?: Partial<Record<OperationId, string>>;
  /** Name of the recipient listing's search parameter (not shown by the spec). Default `search`. */
  recipientSearchParam?: string;
  /**
   * `errorCode`s that mean "invalid status for the operation" on a 400. The spec names none (it
   * speaks of "the standard 400 invalid-status error"); default `INVALID_ORDER_STATUS` (the
   * sandbox's, for every refusal by status, order delete included), `INVALID_STATUS`, and
   * `ORDER_NOT_DELETABLE_STATUS` (the reason code the spec lists for a refused delete, should a
   * deployment send it as `errorCode`).
   */
  invalidStatusErrorCodes?: readonly string[];
  /** Receives one event per attempt. Events never carry headers or the key. */
  onEvent?: (event: RequestEvent) => void;
  /** Extra `User-Agent` text. */
  userAgent?: string;
  /** Jitter source, for tests. */
  random?: () => number;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Overrides the client's per-attempt timeout for this call. */
  timeoutMs?: number;
}

/** One attempt of one operation, for logs and metrics. */
export interface RequestEvent {
  operationId: string;
  method: string;
  path: string;
  attempt: number;
  /** HTTP status, when a response arrived. */
  status?: number;
  durationMs: number;
  /** Error class name when the attempt failed. */
  error?: string;
  /** Milliseconds until the next attempt, when one follows. */
  retryInMs?: number;
}

/** The envelope fields besides `payload` that some callers need (warnings of a checkout, conversion validation). */
export interface EnvelopeInfo {
  errorCode: string | null | undefined;
  errors: string[];
  warnings: string[];
  hasErrors: boolean;
  hasWarnings: boolean;
  /** The envelope's free-form map (e.g. an id the service reports beside the payload). */
  metadata: Record<string, unknown>;
}

export type CheckoutOutcome = S.CheckoutResult & {
  /** Normally says that payment is being processed. */
  warnings: string[];
};

export interface ConversionSubmission extends EnvelopeInfo {
  /** The records as the service echoes them (as sent, invalid ones included). */
  records: unknown[];
}

interface CallInput {
  pathParams?: Record<string, string | number>;
  query?: Record<string, unknown>;
  body?: unknown;
  /** Validates the body with this instead of the endpoint table's schema. */
  bodySchema?: z.ZodType;
}

/** Only the batch limit: each record is left to the service, which processes the valid ones. */
const UNCHECKED_CONVERSIONS = z
  .array(z.unknown())
  .min(1)
  .max(
    S.MAX_CONVERSIONS_PER_REQUEST,
    `at most ${S.MAX_CONVERSIONS_PER_REQUEST} conversion records per request`,
  );

interface Prepared {
  def: EndpointDef;
  path: string;
  url: string;
  body: string | undefined;
  orderId: number | undefined;
}

type Reader<T> = (response: Dispatcher.ResponseData, details: ErrorDetails) => Promise<T>;

/** Error codes of connection failures that happen before any byte of the request is written. */
const NOT_SENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EAI_NONAME",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "EADDRNOTAVAIL",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_CLOSED",
  "UND_ERR_DESTROYED",
]);

const REDACTED = "[REDACTED]";

/** How to find out whether a request with an unknown outcome took effect, per operation. */
const HOW_TO_CHECK: Partial<Record<OperationId, (orderId: number | undefined) => string>> = {
  checkout: (id) =>
    `Do not send the checkout again. Read the order's status (getOrder(${id})): 'Payment Needed', ` +
    `'Paid' or later means the checkout was accepted; 'Draft' or 'Edits Needed' means it was not (or its ` +
    `payment failed), and only then is a new checkout safe.`,
  createOrder: () =>
    "List the orders (listOrders) and look for one created from this template just now before creating another.",
  appendRecipients: (id) =>
    `List the order's recipients (listRecipients(${id})) before appending again: a repeated append adds the ` +
    `recipients twice, because duplicate processing covers only the submitted batch.`,
  addIntegrationRecipient: () =>
    "Sending it again is answered with 422 DUPLICATE_RECIPIENT if the first attempt was queued; treat that as success.",
  requestProximityMailing: () =>
    "Check the integration order's recipients in the service before requesting the same search again.",
  recordQrScan: () =>
    "A repeated scan would be counted twice; check the order's analytics (getAnalytics) first.",
  submitConversions: () =>
    "A repeated batch may be recorded twice; check the conversions in the service before resubmitting.",
  createAddressBookEntry: () =>
    "A repeat creates a second entry; check the address book before creating it again.",
  createAddressBookEntryLegacy: () =>
    "A repeat creates a second entry; check the address book before creating it again.",
};

export class DirectMailClient {
  readonly baseUrl: string;
  readonly #apiKey: string;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;
  readonly #timeoutMs: number;
  readonly #proofTimeoutMs: number;
  readonly #retry: RetryOptions;
  readonly #paths: Partial<Record<OperationId, string>>;
  readonly #searchParam: string;
  readonly #invalidStatusCodes: ReadonlySet<string>;
  readonly #onEvent: ((event: RequestEvent) => void) | undefined;
  readonly #userAgent: string;
  readonly #random: () => number;
  #closed = false;

  constructor(options: DirectMailClientOptions) {
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
    this.#proofTimeoutMs = options.proofTimeoutMs ?? 120_000;
    this.#retry = { ...DEFAULT_RETRY, ...options.retry };
    if (!Number.isInteger(this.#retry.maxAttempts) || this.#retry.maxAttempts < 1) {
      throw new RangeError("DirectMailClient: retry.maxAttempts must be an integer >= 1");
    }
    this.#paths = { ...options.paths };
    this.#searchParam = options.recipientSearchParam ?? "search";
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
    if (options.dispatcher) {
      this.#dispatcher = options.dispatcher;
      this.#ownsDispatcher = false;
    } else {
      this.#dispatcher = new Agent({
        connections: options.connections ?? 8,
        keepAliveTimeout: 10_000,
        connect: { timeout: options.connectTimeoutMs ?? 10_000 },
      });
      this.#ownsDispatcher = true;
    }
  }

  /** Closes the client's own connections (waits for calls in flight). Calling it again does nothing. */
  async close(): Promise<void> {
    if (!this.#ownsDispatcher || this.#closed) return;
    this.#closed = true;
    await this.#dispatcher.close();
  }

  toString(): string {
    return `DirectMailClient(${this.baseUrl})`;
  }

  toJSON(): { baseUrl: string } {
    return { baseUrl: this.baseUrl };
  }

  [inspect.custom](): string {
    return this.toString();
  }

  // ------------------------------------------------------------------ profile

  /** `GET /v1/me`: the profile of the key's owner; the way to confirm that a key works. */
  async me(options?: CallOptions): Promise<S.Profile> {
    return (await this.#json("me", {}, options)).payload;
  }

  // ------------------------------------------------------------------ orders

  /** `POST /v1/order`: creates an order from a template. Not retried once sent (a repeat creates a second order). */
  async createOrder(body: S.CreateOrderRequest, options?: CallOptions): Promise<S.CreateOrderResult> {
    return (await this.#json("createOrder", { body }, options)).payload;
  }

  /** `GET /v1/order`: one page of orders. */
  async listOrders(query: S.ListOrdersQuery = {}, options?: CallOptions): Promise<S.OrderList> {
    return (await this.#json("listOrders", { query }, options)).payload;
  }

  /** Every order matching `query`, page after page (`pageSize` sets the page length). */
  async *iterateOrders(query: S.ListOrdersQuery = {}, options?: CallOptions): AsyncGenerator<S.OrderSummary> {
    const pageSize = Number(query.pageSize ?? 100);
    let pageNumber = Number(query.pageNumber ?? 1);
    let seen = (pageNumber - 1) * pageSize;
    for (;;) {
      const page = await this.listOrders({ ...query, pageNumber, pageSize }, options);
      for (const order of page.orders) yield order;
      seen += page.orders.length;
      if (page.orders.length < pageSize || seen >= page.totalCount) return;
      pageNumber++;
    }
  }

  /** Reads one order by id; undefined when it does not exist (deleted orders behave as nonexistent). */
  async getOrder(orderId: number, options?: CallOptions): Promise<S.OrderSummary | undefined> {
    try {
      const page = await this.listOrders({ id: orderId }, options);
      return page.orders.find((o) => o.orderId === orderId);
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  }

  /** `DELETE /v1/order/{id}`: deletes a Draft or Needs Edits order. */
  async deleteOrder(orderId: number, options?: CallOptions): Promise<S.DeleteOrderResult> {
    return (await this.#json("deleteOrder", { pathParams: { id: orderId } }, options)).payload;
  }

  /**
   * `PUT /v1/order/{id}/recipients`: appends up to 5,000 recipients (build them with
   * `newOrderRecipient`). Not retried once sent: a repeat would add them twice.
   */
  async appendRecipients(
    orderId: number,
    recipients: S.OrderRecipient[],
    options?: CallOptions & { useAlias?: boolean },
  ): Promise<S.AppendResult> {
    const input = { pathParams: { id: orderId }, body: { recipients } };
    if (options?.useAlias) {
      return (await this.#json("appendRecipients", input, options, endpoints.appendRecipients.aliases[0]))
        .payload;
    }
    return (await this.#json("appendRecipients", input, options)).payload;
  }

  /**
   * Appends any number of recipients in requests of at most 5,000, in order, one after another.
   * After a failed batch the rest are skipped (unless `continueOnError`), so the report says exactly
   * which recipients reached the order.
   */
  appendRecipientsInBatches(
    orderId: number,
    recipients: readonly S.OrderRecipient[],
    options: BatchOptions<S.AppendResult> & CallOptions = {},
  ): Promise<BatchReport<S.AppendResult>> {
    return runBatches(
      recipients,
      S.MAX_RECIPIENTS_PER_REQUEST,
      (batch, signal) => this.appendRecipients(orderId, batch, { ...options, ...(signal ? { signal } : {}) }),
      options,
    );
  }

  /** `GET /v1/order/{id}/recipients`: one page of an order's recipients. */
  async listRecipients(
    orderId: number,
    query: S.ListRecipientsQuery = {},
    options?: CallOptions,
  ): Promise<S.RecipientList> {
    return (await this.#json("listRecipients", { pathParams: { id: orderId }, query }, options)).payload;
  }

  /** Every recipient of an order, page after page. */
  async *iterateRecipients(
    orderId: number,
    query: S.ListRecipientsQuery = {},
    options?: CallOptions,
  ): AsyncGenerator<S.OrderRecipient> {
    const pageSize = Number(query.pageSize ?? 100);
    let pageNumber = Number(query.pageNumber ?? 1);
    for (;;) {
      const page = await this.listRecipients(orderId, { ...query, pageNumber, pageSize }, options);
      for (const recipient of page.recipients) yield recipient;
      if (page.recipients.length < pageSize) return;
      pageNumber++;
    }
  }

  /** `DELETE /v1/order/{id}/recipients`: removes recipients of an editable order. */
  async deleteRecipients(
    orderId: number,
    recipientIds: number[],
    options?: CallOptions,
  ): Promise<S.DeleteRecipientsResult> {
    return (
      await this.#json("deleteRecipients", { pathParams: { id: orderId }, body: { recipientIds } }, options)
    ).payload;
  }

  /** `GET /v1/order/{id}/checkout`: prices a checkout; no side effect. */
  async previewCheckout(
    orderId: number,
    query: S.CheckoutPreviewQuery = {},
    options?: CallOptions,
  ): Promise<S.CheckoutPreview> {
    return (await this.#json("previewCheckout", { pathParams: { id: orderId }, query }, options)).payload;
  }

  /**
   * `POST /v1/order/{id}/checkout`: submits the order and starts payment. 200 means accepted, not
   * charged; the order is `Payment Needed` at once. Never retried once it may have reached the
   * service: a failure after that point is a `CheckoutOutcomeUnknownError` that says to read the
   * order's status before anything else.
   */
  async checkout(orderId: number, body: S.CheckoutRequest, options?: CallOptions): Promise<CheckoutOutcome> {
    const { payload, envelope } = await this.#json(
      "checkout",
      { pathParams: { id: orderId }, body },
      options,
    );
    return { ...payload, warnings: envelope.warnings };
  }

  // ------------------------------------------------------------------ proofs

  /** `GET /v1/order/{id}/proof`: the proof PDF of the first mailable recipient, as bytes. */
  getProof(orderId: number, options?: CallOptions): Promise<Uint8Array> {
    return this.#pdfBytes("getProof", { id: orderId }, options);
  }

  /** `GET /v1/order/{id}/proof/{recipient}`: the proof PDF of one recipient, as bytes. */
  getRecipientProof(orderId: number, recipientId: number, options?: CallOptions): Promise<Uint8Array> {
    return this.#pdfBytes("getRecipientProof", { id: orderId, recipient: recipientId }, options);
  }

  /**
   * Streams a proof PDF to `file` without holding it in memory. The file appears complete or not at
   * all (written beside it, then renamed). Returns the number of bytes written.
   */
  async downloadProof(
    orderId: number,
    file: string,
    options: CallOptions & { recipientId?: number } = {},
  ): Promise<{ file: string; bytes: number }> {
    const op = options.recipientId === undefined ? "getProof" : "getRecipientProof";
    const params: Record<string, number> =
      options.recipientId === undefined ? { id: orderId } : { id: orderId, recipient: options.recipientId };
    const temp = `${file}.${randomUUID()}.part`;
    // A folder that does not exist or cannot be written fails here, not as a "network" error later.
    await writeFile(temp, "");
    try {
      await this.#execute<void>(
        op,
        { pathParams: params },
        { ...options, timeoutMs: options.timeoutMs ?? this.#proofTimeoutMs },
        async (response, details) => {
          this.#expectPdf(response, details);
          // A retried attempt starts the file over.
          await pipeline(response.body, createWriteStream(temp, { flags: "w" }));
        },
      );
      const { size } = await stat(temp);
      await rename(temp, file);
      return { file, bytes: size };
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }

  // ------------------------------------------------------------------ analytics and transactions

  /** `GET /v1/order/analytics`: QR scans and delivery progress; per-order failures are in each entry's `status`. */
  async getAnalytics(orderIds: readonly number[], options?: CallOptions): Promise<S.OrderAnalytics> {
    return (await this.#json("getAnalytics", { query: { id: idList(orderIds) } }, options)).payload;
  }

  /** `GET /v1/order/transaction`: charges and credits; per-order failures are in each entry's `status`. */
  async getTransactions(
    orderIds: readonly number[],
    options?: CallOptions,
  ): Promise<S.OrderTransactionReport> {
    return (await this.#json("getTransactions", { query: { id: idList(orderIds) } }, options)).payload;
  }

  /** Recipient delivery status (path assumed, see `paths`): by first and last name, or by address line. */
  async getDeliveryStatus(
    orderId: number,
    query: S.DeliveryStatusQuery,
    options?: CallOptions,
  ): Promise<S.RecipientDeliveryStatus> {
    return (await this.#json("getDeliveryStatus", { pathParams: { id: orderId }, query }, options)).payload;
  }

  /** `POST /v1/order-recipients-statistics`: records a QR scan (applied shortly after). Not retried once sent. */
  async recordQrScan(statistic: S.RecipientStatistic, options?: CallOptions): Promise<S.RecipientStatistic> {
    return (await this.#json("recordQrScan", { body: statistic }, options)).payload;
  }

  // ------------------------------------------------------------------ automations

  /** `GET /v1/integration-orders`. */
  async listIntegrationOrders(options?: CallOptions): Promise<S.IntegrationOrder[]> {
    return (await this.#json("listIntegrationOrders", {}, options)).payload;
  }

  /**
   * `POST /v1/integration-orders/{id}/recipients`: validates one recipient and queues its piece.
   * A rejection is an `IntegrationRecipientRejectedError` with its `reasonCode`; a 500 is retried.
   */
  async addIntegrationRecipient(
    integrationOrderId: number,
    recipient: S.IntegrationRecipient,
    options?: CallOptions,
  ): Promise<S.IntegrationOrder> {
    return (
      await this.#json(
        "addIntegrationRecipient",
        { pathParams: { id: integrationOrderId }, body: recipient },
        options,
      )
    ).payload;
  }

  /** `POST /v1/integration-orders/{id}-by-proximity`: queues a proximity search (asynchronous). Not retried once sent. */
  async requestProximityMailing(
    integrationOrderId: number,
    body: S.ProximityRequest,
    options?: CallOptions,
  ): Promise<S.IntegrationOrder> {
    return (
      await this.#json("requestProximityMailing", { pathParams: { id: integrationOrderId }, body }, options)
    ).payload;
  }

  // ------------------------------------------------------------------ conversions

  /**
   * `POST /v1/conversions`: up to 5,000 records. By default every record is checked here first and
   * nothing is sent if one is invalid (the error names it). With `partial: true` the records go as
   * they are and the service processes the valid ones; its per-record findings come back in
   * `errors` and `warnings`.
   */
  async submitConversions(
    records: S.ConversionRecord[],
    options?: CallOptions & { partial?: boolean },
  ): Promise<ConversionSubmission> {
    const input = options?.partial ? { body: records, bodySchema: UNCHECKED_CONVERSIONS } : { body: records };
    const { payload, envelope } = await this.#json("submitConversions", input, options);
    return { records: payload, ...envelope };
  }

  /** Submits any number of conversion records in requests of at most 5,000, in order. */
  submitConversionsInBatches(
    records: readonly S.ConversionRecord[],
    options: BatchOptions<ConversionSubmission> & CallOptions & { partial?: boolean } = {},
  ): Promise<BatchReport<ConversionSubmission>> {
    return runBatches(
      records,
      S.MAX_CONVERSIONS_PER_REQUEST,
      (batch, signal) => this.submitConversions(batch, { ...options, ...(signal ? { signal } : {}) }),
      options,
    );
  }

  /** `DELETE /v1/conversions/{id}`: marks a conversion for deletion; returns the service's message. */
  async deleteConversion(conversionId: number, options?: CallOptions): Promise<string> {
    return (await this.#json("deleteConversion", { pathParams: { id: conversionId } }, options)).payload;
  }

  /** `GET /v1/conversions/{id}/status`. */
  async getConversionStatus(conversionId: number, options?: CallOptions): Promise<S.ConversionStatus> {
    return (await this.#json("getConversionStatus", { pathParams: { id: conversionId } }, options)).payload;
  }

  // ------------------------------------------------------------------ address book, templates, fonts

  /** `POST /v1/address-book`: creates an entry. Not retried once sent (a repeat creates a second one). */
  async createAddressBookEntry(
    entry: S.AddressBookEntry,
    options?: CallOptions,
  ): Promise<S.AddressBookResult> {
    return (await this.#json("createAddressBookEntry", { body: entry }, options)).payload;
  }

  /** `POST /v1/legacyActions/address-book`: the older path of `createAddressBookEntry`. */
  async createAddressBookEntryLegacy(
    entry: S.AddressBookEntry,
    options?: CallOptions,
  ): Promise<S.AddressBookResult> {
    return (await this.#json("createAddressBookEntryLegacy", { body: entry }, options)).payload;
  }

  /** Active templates (path assumed: `GET /v1/templates`, see `paths`). */
  async listTemplates(options?: CallOptions): Promise<S.Template[]> {
    return (await this.#json("listTemplates", {}, options)).payload;
  }

  /** Handwriting fonts (path assumed: `GET /v1/fonts`, see `paths`). */
  async listFonts(options?: CallOptions): Promise<S.Font[]> {
    return (await this.#json("listFonts", {}, options)).payload;
  }

  // ------------------------------------------------------------------ machinery

  /** Calls a JSON operation and parses its envelope with the operation's schema. */
  async #json<K extends OperationId>(
    op: K,
    input: CallInput,
    options: CallOptions | undefined,
    pathTemplate?: string,
  ): Promise<{ payload: PayloadOf<K>; envelope: EnvelopeInfo }> {
    const def = endpoints[op] as EndpointDef;
    if (def.response.kind !== "json") throw new Error(`${op} is not a JSON operation`);
    const envelopeSchema = def.response.envelope;
    return this.#execute(
      op,
      input,
      options ?? {},
      async (response, details) => {
        const text = await response.body.text();
        let data: unknown;
        try {
          data = JSON.parse(text);
        } catch {
          throw this.#unreadableSuccess(def, details, [`body is not JSON: ${this.#snippet(text)}`]);
        }
        const parsed = envelopeSchema.safeParse(data);
        if (!parsed.success) {
          throw this.#unreadableSuccess(
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
          },
        };
      },
      pathTemplate,
    );
  }

  async #pdfBytes(
    op: "getProof" | "getRecipientProof",
    params: Record<string, number>,
    options?: CallOptions,
  ) {
    return this.#execute(
      op,
      { pathParams: params },
      { ...options, timeoutMs: options?.timeoutMs ?? this.#proofTimeoutMs },
      async (response, details) => {
        this.#expectPdf(response, details);
        return new Uint8Array(await response.body.arrayBuffer());
      },
    );
  }

  #expectPdf(response: Dispatcher.ResponseData, details: ErrorDetails): void {
    const type = String(response.headers["content-type"] ?? "");
    if (!type.toLowerCase().startsWith("application/pdf")) {
      throw new UnexpectedResponseError(
        `${details.method} ${details.path}: expected application/pdf, got '${this.#redact(type) || "no content type"}'`,
        details,
      );
    }
  }

  /** A 2xx that cannot be read. For a checkout it still means accepted: say so, and never invite a repeat. */
  #unreadableSuccess(def: EndpointDef, details: ErrorDetails, issues: string[]): DirectMailError {
    const error = new ResponseValidationError(issues, details);
    if (def.retry === "checkout") {
      const how = HOW_TO_CHECK.checkout?.(details.orderId) ?? "";
      return new CheckoutOutcomeUnknownError(
        `checkout of order ${details.orderId}: the service answered ${details.status} (accepted) but the response ` +
          `could not be read. ${how}`,
        { ...details, cause: error },
        how,
      );
    }
    return error;
  }

  #prepare(op: OperationId, input: CallInput, pathTemplate: string | undefined): Prepared {
    const def = endpoints[op] as EndpointDef;
    const template = pathTemplate ?? this.#paths[op] ?? def.path;
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
        const wire = op === "listRecipients" && name === "search" ? this.#searchParam : name;
        qs.append(wire, String(value));
      }
      const text = qs.toString();
      if (text) search = `?${text}`;
    }

    let body: string | undefined;
    const bodySchema = input.bodySchema ?? def.body;
    if (bodySchema) {
      const parsed = bodySchema.safeParse(input.body);
      if (!parsed.success) fail(parsed.error.issues, "body");
      body = JSON.stringify(parsed.data);
    }

    const orderIdFromBody =
      op === "recordQrScan" ? (input.body as { orderId?: unknown } | undefined)?.orderId : undefined;
    const orderId =
      idKind(op) === "order" && typeof params.id === "number"
        ? params.id
        : typeof orderIdFromBody === "number"
          ? orderIdFromBody
          : undefined;
    return { def, path, url: `${this.baseUrl}${path}${search}`, body, orderId };
  }

  /**
   * Runs one operation with its retry policy. `read` turns a 2xx response into the result; it must
   * consume the body. Error bodies are consumed here.
   */
  async #execute<T>(
    op: OperationId,
    input: CallInput,
    options: CallOptions,
    read: Reader<T>,
    pathTemplate?: string,
  ): Promise<T> {
    const prepared = this.#prepare(op, input, pathTemplate);
    const { def, path } = prepared;
    const timeoutMs = options.timeoutMs ?? this.#timeoutMs;
    const headers: Record<string, string> = {
      "x-api-key": this.#apiKey,
      accept: def.response.kind === "pdf" ? "application/pdf, application/json" : "application/json",
      "user-agent": this.#userAgent,
    };
    if (prepared.body !== undefined) headers["content-type"] = "application/json";

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
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;

      let failure: Failure;
      let error: DirectMailError;
      let retryAfterMs: number | undefined;
      let response: Dispatcher.ResponseData | undefined;
      try {
        response = await request(prepared.url, {
          dispatcher: this.#dispatcher,
          method: def.method,
          headers,
          body: prepared.body,
          signal,
        });
        const status = response.statusCode;
        if (status >= 200 && status < 300) {
          const result = await read(response, { ...details, status });
          this.#emit({
            operationId: op,
            method: def.method,
            path,
            attempt,
            status,
            durationMs: since(started),
          });
          return result;
        }
        retryAfterMs = parseRetryAfter(response.headers["retry-after"]);
        error = await this.#errorFromResponse(def, response, { ...details, status }, retryAfterMs);
        failure = { kind: "status", status };
      } catch (thrown) {
        if (thrown instanceof DirectMailError) {
          // From `read`: the response arrived but is unusable; not a transport failure, not retried.
          this.#emit({
            operationId: op,
            method: def.method,
            path,
            attempt,
            ...(response ? { status: response.statusCode } : {}),
            durationMs: since(started),
            error: thrown.name,
          });
          throw thrown;
        }
        const transport = this.#transportError(thrown, details, options.signal, timeout, timeoutMs);
        if (transport instanceof AbortedError) {
          // The caller cancelled: never retry; for unsafe operations the outcome may be unknown.
          throw this.#unknownOutcome(def, { kind: "network", sent: true }, transport, details) ?? transport;
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
        operationId: op,
        method: def.method,
        path,
        attempt,
        ...(failure.kind === "status" ? { status: failure.status } : {}),
        durationMs: since(started),
        error: error.name,
        ...(wait !== undefined ? { retryInMs: wait } : {}),
      });
      if (wait === undefined) {
        throw this.#unknownOutcome(def, failure, error, details) ?? error;
      }
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

  /** For an operation that is not safe to repeat: the error that says the outcome is unknown, or undefined. */
  #unknownOutcome(
    def: EndpointDef,
    failure: Failure,
    cause: DirectMailError,
    details: ErrorDetails,
  ): OutcomeUnknownError | undefined {
    if (!outcomeUnknown(def.retry, failure)) return undefined;
    const op = def.operationId as OperationId;
    const how = HOW_TO_CHECK[op]?.(details.orderId) ?? "Check the service before repeating the request.";
    const what = `${def.method} ${details.path}`;
    const reason = cause.message;
    const happened =
      failure.kind === "status"
        ? `the service answered ${failure.status}, which does not say whether it took effect`
        : "the request may have reached the service, but no answer came back";
    if (def.retry === "checkout") {
      return new CheckoutOutcomeUnknownError(
        `checkout of order ${details.orderId}: outcome unknown: ${happened} (${reason}). ${how}`,
        { ...details, status: cause.status, errorCode: cause.errorCode, errors: cause.errors, cause },
        how,
      );
    }
    return new OutcomeUnknownError(
      `${what}: outcome unknown: ${happened}, and it is not safe to repeat blindly (${reason}). ${how}`,
      { ...details, status: cause.status, errorCode: cause.errorCode, errors: cause.errors, cause },
      how,
    );
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
    const message = cause instanceof Error ? cause.message : String(cause);
    return new NetworkError(
      `${what}: ${sent ? "connection failed after the request was sent" : "could not connect"} (${code ?? "error"}: ${message})`,
      { ...details, cause },
      sent,
      code,
    );
  }

  /** Reads an error response (always consuming its body) and builds the matching error. */
  async #errorFromResponse(
    def: EndpointDef,
    response: Dispatcher.ResponseData,
    details: ErrorDetails & { status: number },
    retryAfterMs: number | undefined,
  ): Promise<DirectMailError> {
    const status = details.status;
    const text = await response.body.text().catch(() => "");
    let envelope: Partial<z.output<typeof S.ErrorEnvelope>> | undefined;
    if (text.trim() !== "") {
      try {
        const data: unknown = JSON.parse(text);
        const parsed = S.ErrorEnvelope.safeParse(data);
        // A body that is JSON but not a complete envelope still gives what it has.
        envelope = parsed.success ? parsed.data : lenientEnvelope(data);
      } catch {
        envelope = undefined;
      }
    }
    const errors = (envelope?.errors ?? []).map((m) => this.#redact(String(m)));
    const errorCode = envelope?.errorCode || undefined;
    const full: ErrorDetails = { ...details, errorCode: errorCode ?? undefined, errors };
    const what = `${def.method} ${details.path}`;
    const said = errors.length
      ? errors.join("; ")
      : envelope
        ? "no message"
        : text.trim()
          ? `body: ${this.#snippet(text)}`
          : "no body";
    const code = errorCode ? ` ${errorCode}` : "";
    const head = `${what} → ${status}${code}: ${said}`;
    const subject = describeId(def, details);

    switch (true) {
      case status === 400: {
        const invalidStatus =
          (errorCode !== undefined && this.#invalidStatusCodes.has(errorCode)) ||
          (errorCode === undefined &&
            STATUS_SENSITIVE.has(def.operationId) &&
            errors.some((m) => /status/i.test(m)));
        return invalidStatus
          ? new InvalidStatusError(
              `${head}. ${subject ?? "The order"} is in a status that does not allow ${def.operationId}; read its status (listOrders) and act on it.`,
              full,
            )
          : new ValidationError(head, full);
      }
      case status === 401:
        return new UnauthenticatedError(
          `${what} → 401${code}: the API key is missing or invalid (GET /v1/me confirms a key).`,
          full,
        );
      case status === 402:
        return new InsufficientBalanceError(
          `${head}. autoBill is false and the available balance does not cover ${subject ?? "the order"}; ` +
            "nothing was charged. Add funds or check out with autoBill true.",
          full,
        );
      case status === 403:
        return new ForbiddenError(
          def.feature
            ? `${what} → 403: the account's subscription tier lacks the '${def.feature}' feature that ${def.operationId} needs.`
            : `${what} → 403: the account's subscription tier does not allow ${def.operationId}.`,
          full,
          def.feature,
        );
      case status === 404:
        return new NotFoundError(
          `${head}${subject ? `. ${subject} does not exist or is not accessible` : ""}.`.replace(
            /\.\.$/,
            ".",
          ),
          full,
        );
      case status === 422: {
        const result = S.IntegrationRecipientResult.safeParse(envelope?.payload);
        const reason = result.success ? result.data.reasonCode : undefined;
        return new IntegrationRecipientRejectedError(
          `${what} → 422${reason ? ` ${reason}` : code}: ${
            result.success ? this.#redact(result.data.errorMessage) : said
          }`,
          full,
          result.success ? result.data : undefined,
        );
      }
      case status === 429:
        return new RateLimitedError(
          `${head}${retryAfterMs !== undefined ? ` (retry after ${Math.ceil(retryAfterMs / 1000)} s)` : ""}`,
          full,
          retryAfterMs,
        );
      case status >= 500:
        return new ServerError(head, full);
      default:
        return new UnexpectedResponseError(head, full);
    }
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

  #snippet(text: string): string {
    const flat = text.replace(/\s+/g, " ").trim();
    return this.#redact(flat.length > 200 ? `${flat.slice(0, 200)}…` : flat);
  }

  /**
   * A copy of a thrown value that is safe to attach as `cause`: the key is cut out of its message
   * and stack, and nothing else of the original (request options, sockets) is kept.
   */
  #sanitize(thrown: unknown): Error {
    if (!(thrown instanceof Error)) return new Error(this.#redact(String(thrown)));
    const copy = new Error(this.#redact(thrown.message));
    copy.name = thrown.name;
    copy.stack = thrown.stack ? this.#redact(thrown.stack) : copy.stack;
    const code = errorCode(thrown);
    if (code) (copy as Error & { code?: string }).code = code;
    return copy;
  }
}

/** Operations whose 400 can be the spec's "invalid status" error. */
const STATUS_SENSITIVE = new Set<string>([
  "appendRecipients",
  "deleteRecipients",
  "deleteOrder",
  "previewCheckout",
  "checkout",
]);

function idKind(op: OperationId): "order" | "integration order" | "conversion" | undefined {
  const def = endpoints[op] as EndpointDef;
  if (!def.pathParams) return undefined;
  if (op === "addIntegrationRecipient" || op === "requestProximityMailing") return "integration order";
  if (op === "deleteConversion" || op === "getConversionStatus") return "conversion";
  return "order";
}

function describeId(def: EndpointDef, details: ErrorDetails): string | undefined {
  const kind = idKind(def.operationId as OperationId);
  if (!kind) return undefined;
  const id = details.path.match(/\/(\d+)(?:-by-proximity)?(?:\/|$)/)?.[1];
  return id ? `${kind[0]?.toUpperCase()}${kind.slice(1)} ${id}` : undefined;
}

function idList(ids: readonly number[]): string {
  return ids.join(",");
}

function since(started: number): number {
  return Math.round(performance.now() - started);
}

function errorCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") return code;
  }
  return undefined;
}

function lenientEnvelope(data: unknown): Partial<z.output<typeof S.ErrorEnvelope>> | undefined {
  if (typeof data !== "object" || data === null || Array.isArray(data)) return undefined;
  const o = data as Record<string, unknown>;
  return {
    errorCode: typeof o.errorCode === "string" ? o.errorCode : undefined,
    errors: Array.isArray(o.errors) ? o.errors.filter((m): m is string => typeof m === "string") : [],
    payload: o.payload,
  };
}
