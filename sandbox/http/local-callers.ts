import type { FastifyRequest } from "fastify";

/**
 * Who may call the sandbox: the checks that keep a web page out of it. A page can send a "simple"
 * request to any address without asking (no-cors `fetch`, a form): a POST with `text/plain`, no
 * custom header. Through DNS rebinding it can even read the answers and send any header
 * (`X-API-KEY` included), under a name of its own that resolves to this machine: to the browser it
 * is then same-origin with the sandbox. So every request, to the control API and to /v1, must:
 *
 * - name the sandbox in `Host` by the address it listens on, with the port (on loopback also
 *   `localhost`, any `*.localhost` name, `127.0.0.1` and `[::1]`: names a browser resolves to
 *   loopback itself, which no DNS answer can rebind): a rebound name is refused;
 * - have no `Origin`, or the sandbox's own (`http://` + one of those hosts): a page is refused.
 *
 * A write (POST, PUT, PATCH, DELETE) to the control API, and to /v1 when the sandbox listens on a
 * network address, must also have `Content-Type: application/json`, even without a body: a page
 * cannot send that type without a CORS preflight, which the sandbox never approves.
 *
 * Local tools (curl, Node's fetch, the provider, the CLI) send a matching `Host`, no `Origin`, and
 * the content type. The control API also answers loopback clients only (the peer's address).
 */

/** The `errorCode`s of a /v1 request refused by these checks (the control API answers `{ error }`). */
export const CALLER_ERROR_CODES = {
  host: "HOST_NOT_ALLOWED",
  origin: "ORIGIN_NOT_ALLOWED",
  mediaType: "UNSUPPORTED_MEDIA_TYPE",
} as const;

/** A refused request: its status, the /v1 envelope's `errorCode`, and a message saying what to send. */
export interface Refusal {
  status: 403 | 415;
  errorCode: (typeof CALLER_ERROR_CODES)[keyof typeof CALLER_ERROR_CODES];
  message: string;
}

/**
 * Whether a request is for the control API: by the route it matched (`/%5Fsandbox/reset` is
 * routed to `/_sandbox/reset`), or by its path when it matched none.
 */
export function isControlRequest(request: FastifyRequest): boolean {
  return request.routeOptions.url?.startsWith("/_sandbox/") === true || request.url.startsWith("/_sandbox/");
}

/** The methods that change something; GET and HEAD only read, OPTIONS is never approved. */
export const WRITE_METHODS: ReadonlySet<string> = new Set(["POST", "PUT", "PATCH", "DELETE"]);

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3})$/i;

/** Whether an IP address (as Node reports a socket's) is this machine's loopback interface. */
export function isLoopbackAddress(address: string): boolean {
  return LOOPBACK.test(address);
}

/** The loopback names a local tool may use for the sandbox (`Host` and `Origin`), beside `*.localhost`. */
export const LOOPBACK_HOSTS: readonly string[] = ["127.0.0.1", "localhost", "[::1]"];

/**
 * A name under `.localhost` (`sandbox.localhost`): loopback by RFC 6761, resolved so by browsers
 * without asking DNS, and taken as the local sandbox by the provider (provider/settings.ts).
 */
const LOCALHOST_SUBDOMAIN = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+localhost$/;

/** An address as it is written in a URL's host: IPv6 in brackets, an IPv4-mapped one as IPv4. */
function hostForm(address: string): string {
  const mapped = /^::ffff:(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/i.exec(address);
  if (mapped) return mapped[1] as string;
  return address.includes(":") ? `[${address.toLowerCase()}]` : address.toLowerCase();
}

/**
 * How a request reaches the sandbox: whether it listens on loopback only, the port, and the host
 * names that are its own on this connection. Not listening (fastify's `inject`, in-process tests):
 * loopback, any port.
 */
export function ownAddress(request: FastifyRequest): OwnAddress {
  // The same for every request of a connection: /v1 asks on each one (keep-alive reuses sockets).
  const known = ownBySocket.get(request.socket);
  if (known) return known;
  const own = connectionAddress(request);
  ownBySocket.set(request.socket, own);
  return own;
}

const ownBySocket = new WeakMap<object, OwnAddress>();

function connectionAddress(request: FastifyRequest): OwnAddress {
  const listening = request.server.server.address();
  const listenAddress = listening && typeof listening === "object" ? listening.address : undefined;
  const loopback = listenAddress === undefined || isLoopbackAddress(listenAddress);
  const local = request.socket.localAddress;
  const hosts = new Set<string>();
  if (local) hosts.add(hostForm(local));
  // On loopback (or a connection that came in through it, when listening on every interface).
  const loopbackNames = loopback || (local !== undefined && isLoopbackAddress(local));
  if (loopbackNames) for (const name of LOOPBACK_HOSTS) hosts.add(name);
  const port =
    request.socket.localPort ?? (listening && typeof listening === "object" ? listening.port : undefined);
  return { loopback, port, hosts, loopbackNames };
}

/** How a request reaches the sandbox (see `ownAddress`). */
interface OwnAddress {
  /** Whether the sandbox listens on loopback only. */
  loopback: boolean;
  port: number | undefined;
  /** The host names that are the sandbox's own on this connection. */
  hosts: ReadonlySet<string>;
  /** Whether the loopback names are (`*.localhost` included): the connection came in through loopback. */
  loopbackNames: boolean;
}

/** Whether `host[:port]` (a `Host` header, an `Origin`'s authority) names the sandbox itself. */
function isOwn(own: OwnAddress, authority: { host: string; port: number } | undefined): boolean {
  if (!authority) return false;
  if (own.port !== undefined && authority.port !== own.port) return false;
  return own.hosts.has(authority.host) || (own.loopbackNames && LOCALHOST_SUBDOMAIN.test(authority.host));
}

/** `host[:port]` split, lowercased; undefined when it is not one host and an optional port. */
function splitAuthority(text: string): { host: string; port: number } | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/i.exec(text);
  if (!match) return undefined;
  return { host: (match[1] as string).toLowerCase(), port: match[2] === undefined ? 80 : Number(match[2]) };
}

function names(own: OwnAddress, scheme = ""): string {
  const port = own.port === undefined ? "" : `:${own.port}`;
  const listed = [...own.hosts].map((h) => `${scheme}${h}${port}`);
  if (own.loopbackNames) listed.push(`${scheme}NAME.localhost${port}`);
  return listed.join(", ");
}

const shown = (value: string) => JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}…` : value);

function hostRefusal(request: FastifyRequest, own: OwnAddress): Refusal | undefined {
  const header = request.headers.host;
  if (header !== undefined && isOwn(own, splitAuthority(header))) return undefined;
  return {
    status: 403,
    errorCode: CALLER_ERROR_CODES.host,
    message:
      `${header === undefined ? "no Host header" : `Host ${shown(header)} is not this sandbox`}: ` +
      `call it by the address it listens on, with its port (Host: ${names(own)})`,
  };
}

function originRefusal(request: FastifyRequest, own: OwnAddress): Refusal | undefined {
  const origin = request.headers.origin;
  if (origin === undefined) return undefined;
  const match = /^http:\/\/(.*)$/i.exec(origin);
  if (match && isOwn(own, splitAuthority(match[1] as string))) return undefined;
  return {
    status: 403,
    errorCode: CALLER_ERROR_CODES.origin,
    message:
      `Origin ${shown(origin)} is not this sandbox: it answers local tools, not web pages ` +
      `(send no Origin header, or ${names(own, "http://")})`,
  };
}

/** Whether a Content-Type header names JSON (`application/json`, with any parameters). */
export function isJsonType(contentType: string | undefined): boolean {
  return (contentType ?? "").split(";")[0]?.trim().toLowerCase() === "application/json";
}

function mediaTypeRefusal(request: FastifyRequest, what: string): Refusal | undefined {
  if (!WRITE_METHODS.has(request.method) || isJsonType(request.headers["content-type"])) return undefined;
  const type = request.headers["content-type"];
  return {
    status: 415,
    errorCode: CALLER_ERROR_CODES.mediaType,
    message:
      `Content-Type ${type === undefined ? "missing" : shown(type)}: ${what} takes a ${request.method} ` +
      "only with Content-Type: application/json, even without a body (curl: -H 'content-type: application/json')",
  };
}

/**
 * Why a request to the control API is refused, or undefined when a local tool sent it. The peer
 * first (loopback only), then Host, Origin, and for a write the content type.
 */
export function controlRefusal(request: FastifyRequest): Refusal | undefined {
  if (!isLoopbackAddress(request.socket.remoteAddress ?? "127.0.0.1")) {
    return {
      status: 403,
      errorCode: CALLER_ERROR_CODES.host,
      message: "the sandbox control API answers on loopback only",
    };
  }
  const own = ownAddress(request);
  return (
    hostRefusal(request, own) ??
    originRefusal(request, own) ??
    mediaTypeRefusal(request, "the sandbox control API")
  );
}

/**
 * Why a request to the service's interface (/v1, or any path that is not the control API) is
 * refused, or undefined. Host and Origin on every request, reads included: a rebound page is
 * same-origin with the sandbox and sends `X-API-KEY` without a preflight. The content type of a
 * write only on a network address: on loopback a page's simple request carries an `Origin`, and
 * curl's `DELETE` without a type stays a local tool's.
 */
export function apiRefusal(request: FastifyRequest): Refusal | undefined {
  const own = ownAddress(request);
  return (
    hostRefusal(request, own) ??
    originRefusal(request, own) ??
    (own.loopback ? undefined : mediaTypeRefusal(request, "the sandbox"))
  );
}
