import type { z } from "zod";
import { type EndpointDef, endpoints, type OperationId } from "../provider/api/endpoints";
import * as S from "../provider/api/schemas";
import { DEFAULT_PAGE_SIZE, MAX_CONVERSIONS_PER_REQUEST } from "./assumptions";
import { checkReturnAddress } from "./automations";
import { ApiError } from "./errors";
import { renderProof } from "./proof";
import type { Sandbox } from "./sandbox";
import type { Account } from "./service";

/** What a handler gets: the account of the key, and the request parts parsed by the shared schemas. */
export interface Call {
  account: Account;
  params: Record<string, any>;
  query: Record<string, any>;
  /** Parsed by the endpoint's body schema, or raw for the handlers that parse it themselves. */
  body: any;
}

/** A JSON answer: the payload plus whatever the envelope carries beside it. */
export interface JsonAnswer {
  payload: unknown;
  warnings?: string[];
  errors?: string[];
  metadata?: Record<string, unknown>;
  /** The address-book create response has no errorCode or errorDetails (spec). */
  bare?: boolean;
}

export type Answer = JsonAnswer | { pdf: Buffer };

/** Handlers that take the raw body: the spec gives them rules a whole-body schema cannot express. */
export const RAW_BODY: ReadonlySet<OperationId> = new Set<OperationId>([
  "submitConversions",
  "recordQrScan",
  "requestProximityMailing",
]);

/** Throws the 400 of the spec naming each offending field. */
export function parseWith<T extends z.ZodType>(
  schema: T,
  value: unknown,
  errorCode = "INVALID_REQUEST",
  root = "",
): z.output<T> {
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new ApiError(
      400,
      errorCode,
      S.formatIssues(result.error.issues, root),
      null,
      result.error.issues.map((i) => ({
        field: S.formatPath(i.path, root),
        code: i.code,
        message: i.message,
      })),
    );
  }
  return result.data;
}

const page = (q: { pageNumber?: number; pageSize?: number }) => ({
  pageNumber: q.pageNumber ?? 1,
  pageSize: q.pageSize ?? DEFAULT_PAGE_SIZE,
});

/** One handler per operation of the endpoint table. */
export function handlers(sb: Sandbox): Record<OperationId, (call: Call) => Answer | Promise<Answer>> {
  const svc = sb.service;
  return {
    me: ({ account }) => ({ payload: svc.profile(account) }),

    createOrder: ({ account, body }) => ({
      payload: { ...svc.createOrder(account.id, body), status: "Success" },
    }),

    listOrders: ({ account, query }) => ({
      payload: svc.listOrders(account.id, { ...query, ...page(query) }),
    }),

    deleteOrder: ({ account, params }) => ({ payload: svc.deleteOrder(account.id, params.id) }),

    appendRecipients: ({ account, params, body }) => {
      const result = svc.appendRecipients(account.id, params.id, body.recipients);
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
      payload: svc.listRecipients(account.id, params.id, { search: query.search, ...page(query) }),
    }),

    deleteRecipients: ({ account, params, body }) => ({
      payload: svc.deleteRecipients(account.id, params.id, body.recipientIds),
    }),

    previewCheckout: ({ account, params, query }) => ({
      payload: svc.previewCheckout(account.id, params.id, {
        postageType: query.postageType ?? "Standard",
        productionSpeed: query.productionSpeed ?? "Normal",
        holdUntilDate: query.holdUntilDate,
        autoBill: query.autoBill,
      }),
    }),

    checkout: ({ account, params, body }) => {
      const { result, warning } = svc.executeCheckout(account.id, params.id, body);
      return { payload: result, warnings: [warning] };
    },

    getProof: async ({ account, params }) => {
      const { order, recipient } = svc.proofRecipient(account.id, params.id);
      return { pdf: await renderProof(order, recipient) };
    },

    getRecipientProof: async ({ account, params }) => {
      const { order, recipient } = svc.proofRecipient(account.id, params.id, params.recipient);
      return { pdf: await renderProof(order, recipient) };
    },

    getAnalytics: ({ account, query }) => ({
      payload: sb.engagement.analytics(account.id, S.parseOrderIds(query.id)),
    }),

    getTransactions: ({ account, query }) => ({
      payload: sb.engagement.transactions(account.id, S.parseOrderIds(query.id)),
    }),

    listIntegrationOrders: ({ account }) => ({ payload: sb.automations.list(account.id) }),

    addIntegrationRecipient: ({ account, params, body }) => ({
      payload: sb.automations.addRecipient(account.id, params.id, body),
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
      const returnAddress = Object.fromEntries(
        Object.entries(parsed)
          .filter(([k]) => k.startsWith("Return"))
          .map(([k, v]) => [k.charAt(0).toLowerCase() + k.slice(1), v]),
      );
      const filters = Object.fromEntries(Object.entries(parsed).filter(([k]) => k.endsWith("Filter")));
      return {
        payload: sb.automations.requestProximity(account.id, params.id, {
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
      return { payload: sb.engagement.recordScan(account.id, parseWith(S.RecipientStatistic, body)) };
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
      const id = sb.engagement.submitConversions(account.id, valid, body.length);
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
      payload: sb.engagement.deleteConversion(account.id, params.id),
    }),

    getConversionStatus: ({ account, params }) => ({
      payload: sb.engagement.conversionStatus(account.id, params.id),
    }),

    createAddressBookEntry: ({ account, body }) => ({
      payload: sb.engagement.createAddressBookEntry(account.id, body),
      bare: true,
    }),

    createAddressBookEntryLegacy: ({ account, body }) => ({
      payload: sb.engagement.createAddressBookEntry(account.id, body),
      bare: true,
    }),

    listTemplates: ({ account }) => ({ payload: svc.templates(account.id) }),

    listFonts: ({ account }) => ({
      payload: svc.fonts(account.id).map((f) => ({ ...f, displayName: f.name })),
    }),

    getDeliveryStatus: ({ account, params, query }) => ({
      payload: svc.deliveryStatusOf(account.id, params.id, query),
    }),
  };
}

/** Every path an endpoint answers on, in fastify's syntax (`{id}` to `:id`, a literal `:` doubled). */
export function routePaths(def: EndpointDef): string[] {
  return [def.path, ...(def.aliases ?? [])].map((p) => p.replace(/:/g, "::").replace(/\{(\w+)\}/g, ":$1"));
}

export { endpoints };

/** Each path template of the table as a pattern on a request path (`{id}` is one segment or part of one). */
const PATH_PATTERNS = Object.values(endpoints).flatMap((def: EndpointDef) =>
  [def.path, ...(def.aliases ?? [])].map((template) => ({
    method: def.method,
    literal: !template.includes("{"),
    pattern: new RegExp(
      `^${template
        .split(/\{\w+\}/)
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
        .join("[^/]+")}$`,
    ),
  })),
);

/**
 * The methods the table has for a path (for the 405 of another method); HEAD goes with GET. A path
 * that is a template of its own (`/v1/order/analytics`) answers for itself, not as an `{id}` of
 * another (`/v1/order/{id}`), as the OpenAPI document describes it.
 */
export function allowedMethods(path: string): string[] {
  const matches = PATH_PATTERNS.filter((p) => p.pattern.test(path));
  const own = matches.some((p) => p.literal) ? matches.filter((p) => p.literal) : matches;
  const methods = new Set<string>(own.map((p) => p.method));
  if (methods.has("GET")) methods.add("HEAD");
  return [...methods].sort();
}
