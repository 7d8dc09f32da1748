/** Shared set-up of the conformance suite: one sandbox per file, a fresh account per test. */
import { expect } from "vitest";
import type { z } from "zod";
import { ErrorEnvelope } from "../../provider/api/schemas";
import type { TestSandbox } from "../support/sandbox";
import { type Api, api, type HttpResult, recipients } from "./http";

export interface Account {
  apiKey: string;
  c: Api;
  templateId: number;
  qrTemplateId: number;
}

export async function newAccount(
  sb: TestSandbox,
  options: Parameters<TestSandbox["control"]["createAccount"]>[0] = {},
): Promise<Account> {
  const { apiKey } = await sb.control.createAccount(options);
  const { id: templateId } = await sb.control.createTemplate({
    apiKey,
    name: "Plain card",
    product: "Handwritten Postcard",
  });
  const { id: qrTemplateId } = await sb.control.createTemplate({
    apiKey,
    name: "QR card",
    product: "Handwritten Postcard",
    hasQr: true,
    qrUrl: "https://shop.example.com/offer",
  });
  return { apiKey, c: api(sb, apiKey), templateId, qrTemplateId };
}

/** A Draft order of the account, with `n` valid recipients appended. */
export async function newOrder(a: Account, n = 0): Promise<number> {
  const created = await a.c.post("/v1/order", { templateId: a.templateId });
  expect(created.status).toBe(200);
  const orderId = created.json.payload.orderId as number;
  if (n > 0) {
    const appended = await a.c.put(`/v1/order/${orderId}/recipients`, { recipients: recipients(n) });
    expect(appended.status).toBe(200);
  }
  return orderId;
}

export async function orderStatus(a: Account, orderId: number): Promise<string | undefined> {
  const r = await a.c.get(`/v1/order?id=${orderId}`);
  expect(r.status).toBe(200);
  return r.json.payload.orders[0]?.orderStatus;
}

/** Parses a body with a shared schema and fails the test with the schema's complaint. */
export function parsed<T extends z.ZodType>(schema: T, r: HttpResult): z.output<T> {
  const result = schema.safeParse(r.json);
  if (!result.success)
    throw new Error(`response does not match the schema: ${JSON.stringify(result.error.issues)}`);
  return result.data;
}

/** An error answer: the status, the envelope (schema-checked), its errorCode, and the joined messages. */
export function expectError(
  r: HttpResult,
  status: number,
  errorCode?: string,
): { errors: string; json: any } {
  expect(r.status, JSON.stringify(r.json)).toBe(status);
  const body = parsed(ErrorEnvelope, r);
  expect(body.hasErrors).toBe(true);
  if (errorCode) expect(body.errorCode).toBe(errorCode);
  return { errors: body.errors.join("\n"), json: r.json };
}

export const CHECKOUT = { postageType: "Standard", productionSpeed: "Normal" } as const;
