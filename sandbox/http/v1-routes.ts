import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { type EndpointDef, endpoints, type OperationId } from "../../provider/api/endpoints";
import { ERROR_CODES, type Profile } from "../../provider/api/schemas";
import { ApiError } from "../domain/errors";
import type { Account } from "../storage/rows";
import { checkRequestBounds } from "./bounds";
import { envelope } from "./envelope";
import { routePaths } from "./paths";
import "./request";
import {
  type Call,
  type Handler,
  handlers,
  type JsonAnswer,
  type PdfAnswer,
  RAW_BODY,
  type V1Parts,
} from "./v1-handlers";
import { serialize, serializerCompiler, v1ValidatorCompiler } from "./zod";

/**
 * The v1 interface, one route per path of the endpoint table. Each route's schema is the table's:
 * path parameters, query and body are parsed by it before the handler runs, and the success
 * envelope is written through the operation's response schema (see zod.ts), so a response that
 * drifts from what the client parses is a 500, never sent.
 */
export const v1Routes: FastifyPluginAsync<V1Parts> = async (app, parts) => {
  app.setValidatorCompiler(v1ValidatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  const impl = handlers(parts);
  // The sandbox's own bounds, after each request's schema (a raw body is its handler's to parse,
  // and bounded here all the same).
  app.addHook("preHandler", (request, _reply, done) => {
    // A path's ids are looked up (an unknown one is a 404), never bounded.
    checkRequestBounds(request);
    done();
  });

  const authenticate = (request: FastifyRequest): Account => {
    const header = request.headers["x-api-key"];
    const key = Array.isArray(header) ? header[0] : header;
    // Compared exactly: a key with other characters around it is another (unknown) key.
    const account = key ? parts.accounts.authenticate(key) : undefined;
    if (!account) {
      throw new ApiError(401, ERROR_CODES.unauthenticated, [
        key ? "the X-API-KEY header does not name a valid key" : "the X-API-KEY header is missing",
      ]);
    }
    request.account = account;
    return account;
  };

  /**
   * The answers that are the account's profile and nothing beside it (`GET /v1/me`, the call that
   * confirms a key), as written through their route's schema: the profile is the same frozen object
   * while its account is unchanged (Accounts.profile), and so is the text. Per route and profile.
   */
  const profileAnswers = new WeakMap<EndpointDef, WeakMap<Profile, string>>();
  const profileAnswer = (def: EndpointDef, profile: Profile): string => {
    let written = profileAnswers.get(def);
    if (!written) {
      written = new WeakMap();
      profileAnswers.set(def, written);
    }
    let text = written.get(profile);
    if (text === undefined) {
      if (def.response.kind !== "json") throw new Error(`${def.operationId} answers no JSON`);
      text = serialize(def.response.envelope, envelope(profile, profile), `${def.method} ${def.path} (200)`);
      written.set(profile, text);
    }
    return text;
  };

  /** Writes a handler's answer: a PDF as its bytes, JSON in the envelope (through the route's schema). */
  const send = (
    def: EndpointDef,
    account: Account,
    answer: JsonAnswer | PdfAnswer,
    reply: FastifyReply,
  ): FastifyReply => {
    if ("pdf" in answer) {
      return reply.code(200).header("content-type", "application/pdf").send(answer.pdf);
    }
    const profile = parts.accounts.profile(account);
    if (
      answer.payload === profile &&
      !answer.bare &&
      answer.errors === undefined &&
      answer.warnings === undefined &&
      answer.metadata === undefined
    ) {
      // The type fastify gives a body it writes through the schema.
      return reply.code(200).type("application/json; charset=utf-8").send(profileAnswer(def, profile));
    }
    const body = answer.bare
      ? (({ errorCode: _c, errorDetails: _d, ...rest }) => rest)(
          envelope(profile, answer.payload, { warnings: answer.warnings, metadata: answer.metadata }),
        )
      : envelope(profile, answer.payload, {
          errors: answer.errors,
          warnings: answer.warnings,
          metadata: answer.metadata,
        });
    return reply.code(200).send(body);
  };

  /**
   * The route of operation `K` at each of its paths. Fastify's values are untyped: the route's
   * schemas (the table's) parse params, query and body before the handler runs, so they are what
   * the handler's `Call<K>` says; this is the one place that is taken on trust.
   */
  const route = <K extends OperationId>(operationId: K) => {
    const def: EndpointDef = endpoints[operationId];
    const handle: Handler<K> = impl[operationId];
    for (const url of routePaths(def)) {
      app.route({
        method: def.method,
        url,
        schema: {
          ...(def.pathParams ? { params: def.pathParams } : {}),
          ...(def.query ? { querystring: def.query } : {}),
          ...(def.body && !RAW_BODY.has(operationId) ? { body: def.body } : {}),
          // A PDF is bytes, not JSON: it has no schema to be written through.
          ...(def.response.kind === "json" ? { response: { 200: def.response.envelope } } : {}),
        },
        // Key and entitlement before the body is read: a request without a key is a 401 whatever
        // its body, and a tier without the feature a 403.
        onRequest: (request, reply, done) => {
          const account = authenticate(request);
          if (def.feature && account.tier === "basic") {
            // Entitlement failures have no body (spec).
            reply.code(403).send();
            return;
          }
          done();
        },
        handler: (request, reply) => {
          const account = request.account as Account;
          const call = {
            account,
            params: def.pathParams ? request.params : {},
            query: def.query ? request.query : {},
            body: request.body,
          } as Call<K>;
          const answer = handle(call);
          // Most handlers answer at once: no promise and no turn of the microtask queue for them.
          if (answer instanceof Promise) return answer.then((settled) => send(def, account, settled, reply));
          send(def, account, answer, reply);
        },
      });
    }
  };
  for (const operationId of Object.keys(endpoints) as OperationId[]) route(operationId);
};
