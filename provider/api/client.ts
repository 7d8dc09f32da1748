/**
 * DirectMailClient: the only code that talks HTTP to the direct-mail service. One typed method per
 * operation of the endpoint table; how a call is sent, retried and turned into an error is the
 * transport's (core/transport.ts), and what differs per operation is in the endpoint table.
 */
import { randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import { rename, rm, stat, writeFile } from "node:fs/promises";
import { pipeline } from "node:stream/promises";
import { inspect } from "node:util";
import { z } from "zod";
import { type BatchOptions, type BatchReport, runBatches } from "./core/batching";
import { NotFoundError } from "./core/errors";
import { paginate } from "./core/pagination";
import { Transport } from "./core/transport";
import type { CallInput, CallOptions, EnvelopeInfo, TransportOptions } from "./core/transport-types";
import { endpoints, type OperationId, type PayloadOf } from "./endpoints";
import * as S from "./schemas";

export type { CallOptions, EnvelopeInfo, RequestEvent } from "./core/transport-types";

export interface DirectMailClientOptions extends TransportOptions {
  /** Per-attempt timeout for proofs (PDF rendering is slower). Default 120 s. */
  proofTimeoutMs?: number;
  /** Name of the recipient listing's search parameter (not shown by the spec). Default `search`. */
  recipientSearchParam?: string;
}

export type CheckoutOutcome = S.CheckoutResult & {
  /** Normally says that payment is being processed. */
  warnings: string[];
};

export interface ConversionSubmission extends EnvelopeInfo {
  /** The records as the service echoes them (as sent, invalid ones included). */
  records: unknown[];
}

/** Only the batch limit: each record is left to the service, which processes the valid ones. */
const UNCHECKED_CONVERSIONS = z
  .array(z.unknown())
  .min(1)
  .max(
    S.MAX_CONVERSIONS_PER_REQUEST,
    `at most ${S.MAX_CONVERSIONS_PER_REQUEST} conversion records per request`,
  );

export class DirectMailClient {
  readonly baseUrl: string;
  readonly #transport: Transport;
  readonly #proofTimeoutMs: number;
  readonly #searchParam: string;

  constructor(options: DirectMailClientOptions) {
    this.#transport = new Transport(options);
    this.baseUrl = this.#transport.baseUrl;
    this.#proofTimeoutMs = options.proofTimeoutMs ?? 120_000;
    this.#searchParam = options.recipientSearchParam ?? "search";
  }

  /** Closes the client's own connections (waits for calls in flight). Calling it again does nothing. */
  close(): Promise<void> {
    return this.#transport.close();
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
    return this.#payload("me", {}, options);
  }

  // ------------------------------------------------------------------ orders

  /** `POST /v1/order`: creates an order from a template. Not retried once sent (a repeat creates a second order). */
  async createOrder(body: S.CreateOrderRequest, options?: CallOptions): Promise<S.CreateOrderResult> {
    return this.#payload("createOrder", { body }, options);
  }

  /** `GET /v1/order`: one page of orders. */
  async listOrders(query: S.ListOrdersQuery = {}, options?: CallOptions): Promise<S.OrderList> {
    return this.#payload("listOrders", { query }, options);
  }

  /** Every order matching `query`, page after page (`pageSize` sets the page length). */
  async *iterateOrders(query: S.ListOrdersQuery = {}, options?: CallOptions): AsyncGenerator<S.OrderSummary> {
    yield* paginate(query, {
      page: (pageNumber, pageSize) => this.listOrders({ ...query, pageNumber, pageSize }, options),
      items: (page) => page.orders,
      total: (page) => page.totalCount,
    });
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
    return this.#payload("deleteOrder", { pathParams: { id: orderId } }, options);
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
    const path = options?.useAlias ? endpoints.appendRecipients.aliases[0] : undefined;
    return this.#payload(
      "appendRecipients",
      { pathParams: { id: orderId }, body: { recipients }, ...(path ? { path } : {}) },
      options,
    );
  }

  /**
   * `appendRecipients` with each recipient already serialized: the UTF-8 JSON text of a complete
   * `OrderRecipient` (`Buffer.from(JSON.stringify(newOrderRecipient(...)))`), sent without being
   * validated and serialized again. Bytes, not strings: a large list's batches wait to be sent off
   * the JavaScript heap, so they do not grow it. Only the count is checked.
   */
  async appendSerializedRecipients(
    orderId: number,
    recipients: readonly Uint8Array[],
    options?: CallOptions,
  ): Promise<S.AppendResult> {
    if (recipients.length < 1 || recipients.length > S.MAX_RECIPIENTS_PER_REQUEST)
      throw new RangeError(
        `an append carries 1 to ${S.MAX_RECIPIENTS_PER_REQUEST} recipients, got ${recipients.length}`,
      );
    const open = Buffer.from('{"recipients":[');
    const close = Buffer.from("]}");
    let size = open.length + close.length + recipients.length - 1;
    for (const recipient of recipients) size += recipient.length;
    const body = Buffer.allocUnsafe(size);
    let at = open.copy(body, 0);
    for (const [i, recipient] of recipients.entries()) {
      if (i > 0) at = body.writeUInt8(0x2c, at); // ,
      body.set(recipient, at);
      at += recipient.length;
    }
    close.copy(body, at);
    return this.#payload("appendRecipients", { pathParams: { id: orderId }, serializedBody: body }, options);
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
    const queryNames = { search: this.#searchParam };
    return this.#payload("listRecipients", { pathParams: { id: orderId }, query, queryNames }, options);
  }

  /** Every recipient of an order, page after page. */
  async *iterateRecipients(
    orderId: number,
    query: S.ListRecipientsQuery = {},
    options?: CallOptions,
  ): AsyncGenerator<S.OrderRecipient> {
    yield* paginate(query, {
      page: (pageNumber, pageSize) =>
        this.listRecipients(orderId, { ...query, pageNumber, pageSize }, options),
      items: (page) => page.recipients,
      // Walked to the end to find ids: the sandbox or service lists the next page meanwhile.
      readAhead: true,
    });
  }

  /** `DELETE /v1/order/{id}/recipients`: removes recipients of an editable order. */
  async deleteRecipients(
    orderId: number,
    recipientIds: number[],
    options?: CallOptions,
  ): Promise<S.DeleteRecipientsResult> {
    return this.#payload(
      "deleteRecipients",
      { pathParams: { id: orderId }, body: { recipientIds } },
      options,
    );
  }

  /** `GET /v1/order/{id}/checkout`: prices a checkout; no side effect. */
  async previewCheckout(
    orderId: number,
    query: S.CheckoutPreviewQuery = {},
    options?: CallOptions,
  ): Promise<S.CheckoutPreview> {
    return this.#payload("previewCheckout", { pathParams: { id: orderId }, query }, options);
  }

  /**
   * `POST /v1/order/{id}/checkout`: submits the order and starts payment. 200 means accepted, not
   * charged; the order is `Payment Needed` at once. Never retried once it may have reached the
   * service: a failure after that point is a `CheckoutOutcomeUnknownError` that says to read the
   * order's status before anything else.
   */
  async checkout(orderId: number, body: S.CheckoutRequest, options?: CallOptions): Promise<CheckoutOutcome> {
    const { payload, envelope } = await this.#transport.json(
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
      await this.#transport.execute<void>(
        op,
        { pathParams: params },
        this.#proofOptions(options),
        async (response, details) => {
          this.#transport.expectPdf(response, details);
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
    return this.#payload("getAnalytics", { query: { id: idList(orderIds) } }, options);
  }

  /**
   * The service's clock: the `Date` of its answer to `me` (this machine's clock when it gives none).
   * The month of a charge is the service's, so "this month" is read from it too.
   */
  async serviceTime(options?: CallOptions): Promise<Date> {
    const { envelope } = await this.#transport.json("me", {}, options);
    return envelope.answeredAt ?? new Date();
  }

  /** `GET /v1/order/transaction`: charges and credits; per-order failures are in each entry's `status`. */
  async getTransactions(
    orderIds: readonly number[],
    options?: CallOptions,
  ): Promise<S.OrderTransactionReport> {
    return this.#payload("getTransactions", { query: { id: idList(orderIds) } }, options);
  }

  /** Recipient delivery status (path assumed, see `paths`): by first and last name, or by address line. */
  async getDeliveryStatus(
    orderId: number,
    query: S.DeliveryStatusQuery,
    options?: CallOptions,
  ): Promise<S.RecipientDeliveryStatus> {
    return this.#payload("getDeliveryStatus", { pathParams: { id: orderId }, query }, options);
  }

  /** `POST /v1/order-recipients-statistics`: records a QR scan (applied shortly after). Not retried once sent. */
  async recordQrScan(statistic: S.RecipientStatistic, options?: CallOptions): Promise<S.RecipientStatistic> {
    return this.#payload("recordQrScan", { body: statistic }, options);
  }

  // ------------------------------------------------------------------ automations

  /** `GET /v1/integration-orders`. */
  async listIntegrationOrders(options?: CallOptions): Promise<S.IntegrationOrder[]> {
    return this.#payload("listIntegrationOrders", {}, options);
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
    return this.#payload(
      "addIntegrationRecipient",
      { pathParams: { id: integrationOrderId }, body: recipient },
      options,
    );
  }

  /** `POST /v1/integration-orders/{id}-by-proximity`: queues a proximity search (asynchronous). Not retried once sent. */
  async requestProximityMailing(
    integrationOrderId: number,
    body: S.ProximityRequest,
    options?: CallOptions,
  ): Promise<S.IntegrationOrder> {
    return this.#payload(
      "requestProximityMailing",
      { pathParams: { id: integrationOrderId }, body },
      options,
    );
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
    const { payload, envelope } = await this.#transport.json("submitConversions", input, options);
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
    return this.#payload("deleteConversion", { pathParams: { id: conversionId } }, options);
  }

  /** `GET /v1/conversions/{id}/status`. */
  async getConversionStatus(conversionId: number, options?: CallOptions): Promise<S.ConversionStatus> {
    return this.#payload("getConversionStatus", { pathParams: { id: conversionId } }, options);
  }

  // ------------------------------------------------------------------ address book, templates, fonts

  /** `POST /v1/address-book`: creates an entry. Not retried once sent (a repeat creates a second one). */
  async createAddressBookEntry(
    entry: S.AddressBookEntry,
    options?: CallOptions,
  ): Promise<S.AddressBookResult> {
    return this.#payload("createAddressBookEntry", { body: entry }, options);
  }

  /** `POST /v1/legacyActions/address-book`: the older path of `createAddressBookEntry`. */
  async createAddressBookEntryLegacy(
    entry: S.AddressBookEntry,
    options?: CallOptions,
  ): Promise<S.AddressBookResult> {
    return this.#payload("createAddressBookEntryLegacy", { body: entry }, options);
  }

  /** Active templates (path assumed: `GET /v1/templates`, see `paths`). */
  async listTemplates(options?: CallOptions): Promise<S.Template[]> {
    return this.#payload("listTemplates", {}, options);
  }

  /** Handwriting fonts (path assumed: `GET /v1/fonts`, see `paths`). */
  async listFonts(options?: CallOptions): Promise<S.Font[]> {
    return this.#payload("listFonts", {}, options);
  }

  // ------------------------------------------------------------------ helpers

  /** Calls a JSON operation; its payload, parsed with the operation's schema. */
  async #payload<K extends OperationId>(
    op: K,
    input: CallInput,
    options: CallOptions | undefined,
  ): Promise<PayloadOf<K>> {
    return (await this.#transport.json(op, input, options)).payload;
  }

  /** A proof PDF as bytes, with the proofs' longer timeout. */
  #pdfBytes(
    op: "getProof" | "getRecipientProof",
    params: Record<string, number>,
    options?: CallOptions,
  ): Promise<Uint8Array> {
    return this.#transport.execute(
      op,
      { pathParams: params },
      this.#proofOptions(options),
      async (response, details) => {
        this.#transport.expectPdf(response, details);
        return new Uint8Array(await response.body.arrayBuffer());
      },
    );
  }

  #proofOptions(options: CallOptions | undefined): CallOptions {
    return { ...options, timeoutMs: options?.timeoutMs ?? this.#proofTimeoutMs };
  }
}

function idList(ids: readonly number[]): string {
  return ids.join(",");
}
