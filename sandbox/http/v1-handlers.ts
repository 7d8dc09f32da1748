import type { z } from "zod";
import type { Endpoints, OperationId } from "../../provider/api/endpoints";
import * as S from "../../provider/api/schemas";
import { DEFAULT_PAGE_SIZE, MAX_CONVERSIONS_PER_REQUEST, MAX_DISCOVERED_PER_REQUEST } from "../assumptions";
import type { Accounts } from "../domain/accounts";
import type { AddressBook } from "../domain/address-book";
import type { Analytics } from "../domain/analytics";
import { type Automations, checkReturnAddress } from "../domain/automations";
import type { Checkout } from "../domain/checkout";
import type { Conversions } from "../domain/conversions";
import { ApiError } from "../domain/errors";
import type { Orders } from "../domain/orders";
import { renderProof } from "../domain/proof";
import type { Recipients } from "../domain/recipients";
import type { Scans } from "../domain/scans";
import type { Templates } from "../domain/templates";
import type { Transactions } from "../domain/transactions";
import type { Account } from "../storage/rows";
import { parseWith } from "./zod";

/** The domain parts the v1 operations use. */
export interface V1Parts {
  accounts: Accounts;
  templates: Templates;
  orders: Orders;
  recipients: Recipients;
  checkout: Checkout;
  automations: Automations;
  scans: Scans;
  analytics: Analytics;
  transactions: Transactions;
  conversions: Conversions;
  addressBook: AddressBook;
}

/** Handlers that take the raw body: the spec gives them rules a whole-body schema cannot express. */
type RawBodyOperation = "submitConversions" | "recordQrScan" | "requestProximityMailing";
export const RAW_BODY: ReadonlySet<OperationId> = new Set<RawBodyOperation>([
  "submitConversions",
  "recordQrScan",
  "requestProximityMailing",
]);

/** What the table's schema at `field` of operation `K` makes of a request part; `Absent` without one. */
type Parsed<K extends OperationId, Field extends string, Absent> = Endpoints[K] extends {
  [F in Field]: infer Schema extends z.ZodType;
}
  ? z.output<Schema>
  : Absent;

/**
 * What the handler of operation `K` gets: the account of the key, and the request parts as the
 * table's schemas parsed them (v1-routes.ts registers those schemas with each route). A body is
 * unknown where the handler parses it itself (RAW_BODY) or the operation reads none.
 */
export interface Call<K extends OperationId> {
  account: Account;
  params: Parsed<K, "pathParams", Record<never, never>>;
  query: Parsed<K, "query", Record<never, never>>;
  body: K extends RawBodyOperation ? unknown : Parsed<K, "body", unknown>;
}

/** A JSON answer: the payload plus whatever the envelope carries beside it. */
export interface JsonAnswer<Payload = unknown> {
  payload: Payload;
  warnings?: string[];
  errors?: string[];
  metadata?: Record<string, unknown>;
  /** The address-book create response has no errorCode or errorDetails (spec). */
  bare?: boolean;
}

/** A PDF answer: the bytes as they are sent. */
export interface PdfAnswer {
  pdf: Buffer;
}

/**
 * What the handler of operation `K` answers: for a JSON operation, a payload its response schema
 * takes in (the envelope is written through that schema, zod.ts); for a PDF operation, the bytes.
 */
export type Answer<K extends OperationId> = Endpoints[K]["response"] extends {
  kind: "json";
  payload: infer Payload extends z.ZodType;
}
  ? JsonAnswer<z.input<Payload>>
  : PdfAnswer;

/** The handler of operation `K`. */
export type Handler<K extends OperationId> = (call: Call<K>) => Answer<K> | Promise<Answer<K>>;

/** One handler per operation of the endpoint table. */
export type Handlers = { [K in OperationId]: Handler<K> };

const page = (q: { pageNumber?: number | undefined; pageSize?: number | undefined }) => ({
  pageNumber: q.pageNumber ?? 1,
  pageSize: q.pageSize ?? DEFAULT_PAGE_SIZE,
});

/** One handler per operation of the endpoint table. */
export function handlers(parts: V1Parts): Handlers {
  const { accounts, templates, orders, recipients, checkout, automations } = parts;
  const { scans, analytics, transactions, conversions, addressBook } = parts;
  return {
    me: ({ account }) => ({ payload: accounts.profile(account) }),

    createOrder: ({ account, body }) => ({
      payload: { ...orders.create(account.id, body), status: "Success" },
    }),

    listOrders: ({ account, query }) => ({
      payload: orders.list(account.id, { ...query, ...page(query) }),
    }),

    deleteOrder: ({ account, params }) => ({ payload: orders.delete(account.id, params.id) }),

    appendRecipients: ({ account, params, body }) => {
      const result = recipients.append(account.id, params.id, body.recipients);
      const warnings: string[] = [];
      if (result.droppedRecipients > 0) {
        warnings.push(
          `${result.droppedRecipients} of ${result.submittedRecipients} submitted recipients were dropped; see undeliverable`,
        );
      }
      if (result.variableImages.recipientsWithIssues.length > 0) {
        warnings.push(
          `${result.variableImages.recipientsWithIssues.length} recipients have variable-image issues; the template default image is used for those`,
        );
      }
      return { payload: result, warnings };
    },

    listRecipients: ({ account, params, query }) => ({
      payload: recipients.list(account.id, params.id, { search: query.search, ...page(query) }),
    }),

    deleteRecipients: ({ account, params, body }) => ({
      payload: recipients.delete(account.id, params.id, body.recipientIds),
    }),

    previewCheckout: ({ account, params, query }) => ({
      payload: checkout.preview(account.id, params.id, {
        postageType: query.postageType ?? "Standard",
        productionSpeed: query.productionSpeed ?? "Normal",
        holdUntilDate: query.holdUntilDate,
        autoBill: query.autoBill,
      }),
    }),

    checkout: ({ account, params, body }) => {
      const { result, warning } = checkout.execute(account.id, params.id, body);
      return { payload: result, warnings: [warning] };
    },

    getProof: async ({ account, params }) => {
      const { order, recipient } = recipients.proofRecipient(account.id, params.id);
      return { pdf: await renderProof(order, recipient) };
    },

    getRecipientProof: async ({ account, params }) => {
      const { order, recipient } = recipients.proofRecipient(account.id, params.id, params.recipient);
      return { pdf: await renderProof(order, recipient) };
    },

    getAnalytics: ({ account, query }) => ({
      payload: analytics.report(account.id, S.parseOrderIds(query.id)),
    }),

    getTransactions: ({ account, query }) => ({
      payload: transactions.report(account.id, S.parseOrderIds(query.id)),
    }),

    listIntegrationOrders: ({ account }) => ({ payload: automations.list(account.id) }),

    addIntegrationRecipient: ({ account, params, body }) => ({
      payload: automations.addRecipient(account.id, params.id, body),
    }),

    requestProximityMailing: ({ account, params, body }) => {
      // The return-address rules first, so the answer carries the rule's reason code.
      if (body !== null && typeof body === "object" && !Array.isArray(body)) {
        const pascal = (f: string) => f.charAt(0).toUpperCase() + f.slice(1);
        const broken = checkReturnAddress(
          Object.fromEntries(
            Object.entries(body)
              .filter(([k]) => k.startsWith("Return"))
              .map(([k, v]) => [k.charAt(0).toLowerCase() + k.slice(1), typeof v === "string" ? v : null]),
          ),
          pascal,
        );
        if (broken) {
          throw new ApiError(
            400,
            broken.reasonCode,
            [broken.message],
            null,
            broken.fields.map((field) => ({ field, reasonCode: broken.reasonCode })),
          );
        }
      }
      const parsed = parseWith(S.ProximityRequest, body);
      // Discovery queues every neighbour asked for: bounded per request (assumptions.ts).
      const asked = parsed.Addresses.reduce((sum, a) => sum + a.DesiredCount, 0);
      if (asked > MAX_DISCOVERED_PER_REQUEST) {
        throw new ApiError(400, "INVALID_REQUEST", [
          `Addresses: the DesiredCount of all addresses add up to ${asked}; at most ` +
            `${MAX_DISCOVERED_PER_REQUEST} a request (a bound of the sandbox; the spec states none)`,
        ]);
      }
      const returnAddress = Object.fromEntries(
        Object.entries(parsed)
          .filter(([k]) => k.startsWith("Return"))
          .map(([k, v]) => [k.charAt(0).toLowerCase() + k.slice(1), v]),
      );
      const filters = Object.fromEntries(Object.entries(parsed).filter(([k]) => k.endsWith("Filter")));
      return {
        payload: automations.requestProximity(account.id, params.id, {
          Name: parsed.Name,
          Addresses: parsed.Addresses,
          MultiUse: parsed.MultiUse,
          returnAddress,
          filters,
        }),
        warnings: ["Proximity discovery is asynchronous; recipients are queued when it completes"],
      };
    },

    recordQrScan: ({ account, body }) => {
      // The spec's own 400 for this field, under its own code; the shared schema states the rule.
      if (body !== null && typeof body === "object" && "statisticValue" in body) {
        parseWith(
          S.RecipientStatistic.shape.statisticValue,
          body.statisticValue,
          "INVALID_STATISTIC_VALUE",
          "statisticValue",
        );
      }
      return { payload: scans.record(account.id, parseWith(S.RecipientStatistic, body)) };
    },

    submitConversions: ({ account, body }) => {
      if (!Array.isArray(body))
        throw new ApiError(400, "INVALID_REQUEST", ["body: expected a JSON array of conversion records"]);
      if (body.length > MAX_CONVERSIONS_PER_REQUEST) {
        throw new ApiError(400, "TOO_MANY_RECORDS", [
          `body: ${body.length} records; at most ${MAX_CONVERSIONS_PER_REQUEST} per request, none was processed`,
        ]);
      }
      if (body.length === 0)
        throw new ApiError(400, "INVALID_REQUEST", ["body: at least one conversion record is required"]);
      const errors: string[] = [];
      const valid: S.ConversionRecord[] = [];
      body.forEach((record, i) => {
        const result = S.ConversionRecord.safeParse(record);
        if (result.success) valid.push(result.data);
        else errors.push(...S.formatIssues(result.error.issues, `[${i}]`));
      });
      const id = conversions.submit(account.id, valid, body.length);
      if (id === null) throw new ApiError(400, "INVALID_REQUEST", errors, body);
      const rejected = body.length - valid.length;
      return {
        payload: body,
        errors,
        warnings:
          rejected > 0 ? [`${rejected} of ${body.length} records were invalid and not processed`] : [],
        metadata: { conversionId: id, acceptedRecords: valid.length, rejectedRecords: rejected },
      };
    },

    deleteConversion: ({ account, params }) => ({
      payload: conversions.delete(account.id, params.id),
    }),

    getConversionStatus: ({ account, params }) => ({
      payload: conversions.status(account.id, params.id),
    }),

    createAddressBookEntry: ({ account, body }) => ({
      payload: addressBook.create(account.id, body),
      bare: true,
    }),

    createAddressBookEntryLegacy: ({ account, body }) => ({
      payload: addressBook.create(account.id, body),
      bare: true,
    }),

    listTemplates: ({ account }) => ({ payload: templates.list(account.id) }),

    listFonts: ({ account }) => ({
      payload: templates.fonts(account.id).map((f) => ({ ...f, displayName: f.name })),
    }),

    getDeliveryStatus: ({ account, params, query }) => ({
      payload: recipients.deliveryStatusOf(account.id, params.id, query),
    }),
  };
}
