/**
 * Plain HTTP for the conformance suite: real requests over the loopback, no client library, so the
 * suite tests the wire and nothing else. Bodies are checked against the shared schemas by the caller.
 */

import * as net from "node:net";
import type { AddressInput } from "../../provider/api/address-rules";
import { newOrderRecipient } from "../../provider/api/recipients";
import type { TestSandbox } from "../support/sandbox";

export interface HttpResult {
  status: number;
  headers: Headers;
  /** Parsed JSON body, or undefined for an empty or non-JSON body. */
  json: any;
  bytes: Buffer;
}

export interface RequestOptions {
  apiKey?: string | null;
  body?: unknown;
  /** A raw body sent as is (with `contentType`). */
  raw?: string;
  contentType?: string;
  headers?: Record<string, string>;
}

export async function http(
  url: string,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<HttpResult> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey) headers["x-api-key"] = options.apiKey;
  let body: string | undefined;
  if (options.raw !== undefined) {
    body = options.raw;
    headers["content-type"] = options.contentType ?? "application/json";
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["content-type"] = "application/json";
  }
  const response = await fetch(`${url}${path}`, { method, headers, body: body ?? null });
  const bytes = Buffer.from(await response.arrayBuffer());
  let json: any;
  if ((response.headers.get("content-type") ?? "").includes("json") && bytes.length > 0)
    json = JSON.parse(bytes.toString("utf8"));
  return { status: response.status, headers: response.headers, json, bytes };
}

/**
 * One request written byte for byte on a fresh connection (for what fetch will not send: a body on
 * a GET, a false Content-Length, a malformed path or header). `head` is the request line and header
 * lines without the final blank line; Content-Length is added for a body unless `head` has one (or
 * says `Transfer-Encoding`: the body is then sent as written, chunks and all).
 * `halfClose` ends the sending side after the bytes (a request cut short); `latin1` writes each
 * character as one byte (a header byte such as 0xA0, which UTF-8 would write as two).
 */
export async function rawHttp(
  url: string,
  head: string,
  body = "",
  options: { halfClose?: boolean; latin1?: boolean } = {},
): Promise<HttpResult> {
  const { hostname, port } = new URL(url);
  const withLength =
    body && !/^(content-length|transfer-encoding):/im.test(head)
      ? `${head}\r\nContent-Length: ${Buffer.byteLength(body)}`
      : head;
  const response = await new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(Number(port), hostname, () => {
      const text = `${withLength}\r\nConnection: close\r\n\r\n${body}`;
      const bytes = options.latin1 ? Buffer.from(text, "latin1") : text;
      if (options.halfClose) socket.end(bytes);
      else socket.write(bytes);
    });
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("end", () => resolve(Buffer.concat(chunks)));
    socket.on("error", reject);
  });
  const split = response.indexOf("\r\n\r\n");
  const [statusLine = "", ...headerLines] = response.subarray(0, split).toString("latin1").split("\r\n");
  const headers = new Headers();
  for (const line of headerLines) {
    const colon = line.indexOf(":");
    headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  const bytes = response.subarray(split + 4);
  let json: any;
  if ((headers.get("content-type") ?? "").includes("json") && bytes.length > 0)
    json = JSON.parse(bytes.toString("utf8"));
  return { status: Number(statusLine.split(" ")[1]), headers, json, bytes };
}

/** A client bound to one sandbox and one key. */
export function api(sb: TestSandbox, apiKey: string | null) {
  const call = (method: string, path: string, body?: unknown) => http(sb.url, method, path, { apiKey, body });
  return {
    get: (path: string) => call("GET", path),
    post: (path: string, body?: unknown) => call("POST", path, body),
    put: (path: string, body?: unknown) => call("PUT", path, body),
    del: (path: string, body?: unknown) => call("DELETE", path, body),
  };
}

export type Api = ReturnType<typeof api>;

/** A complete order recipient (all keys present, as the schema requires) from the fields given. */
export function recipient(
  fields: AddressInput & {
    firstName?: string | null | undefined;
    lastName?: string | null | undefined;
    toOrganization?: string | null | undefined;
  } & Record<string, string | null | undefined> = {},
) {
  const value = (k: string, fallback: string | null = null) => (k in fields ? (fields[k] ?? null) : fallback);
  const metadata = Object.fromEntries(
    Object.entries(fields).filter(
      ([k]) =>
        ![
          "firstName",
          "lastName",
          "toOrganization",
          "address1",
          "address2",
          "city",
          "state",
          "zipCode",
          "country",
          "text",
          "text2",
        ].includes(k),
    ),
  );
  return newOrderRecipient({
    address: {
      address1: value("address1", "123 Main Street"),
      address2: value("address2"),
      city: value("city", "Springfield"),
      state: value("state", "IL"),
      zipCode: value("zipCode", "62701"),
      country: value("country", "US"),
    },
    personal: {
      firstName: value("firstName", "Ada"),
      lastName: value("lastName", "Lovelace"),
      toOrganization: value("toOrganization"),
    },
    metadata: {
      ...metadata,
      text: String(fields.text ?? "Thanks for being a customer!"),
      text2: String(fields.text2 ?? ""),
    },
  });
}

/** `n` distinct valid recipients (house numbers 1, 2, ... on one street). */
export function recipients(n: number, start = 1) {
  return Array.from({ length: n }, (_, i) =>
    recipient({ firstName: `R${start + i}`, lastName: "Test", address1: `${start + i} Oak Avenue` }),
  );
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
