import { type EndpointDef, endpoints } from "../../provider/api/endpoints";

/** Every path an endpoint answers on, in fastify's syntax (`{id}` to `:id`, a literal `:` doubled). */
export function routePaths(def: EndpointDef): string[] {
  return [def.path, ...(def.aliases ?? [])].map((p) => p.replace(/:/g, "::").replace(/\{(\w+)\}/g, ":$1"));
}

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
