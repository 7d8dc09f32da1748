/**
 * What the request log may show of a request's URL: never a key. The query is read as the server
 * reads it (fastify decodes `+` and `%XX` in names), so a key sent as `?%61piKey=…`, `?api%4Bey=…`,
 * `?APIKEY=…` or `?apiKey[]=…` is masked like `?apiKey=…`: a parameter's value is written `***`
 * when its name, decoded (repeatedly, for a double encoding), folded to lower case and stripped of
 * everything but letters and digits, contains `apikey`. Headers are never logged.
 */

/** `%XX` escapes decoded one byte at a time (a broken escape is kept), `+` as a space. */
function decodeOnce(text: string): string {
  const spaced = text.replace(/\+/g, " ");
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced.replace(/%([0-9a-f]{2})/gi, (_, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    );
  }
}

/** A query parameter's name as it would be compared: decoded until it stops changing, folded. */
export function normalizedParamName(raw: string): string {
  let name = raw;
  for (let round = 0; round < 5; round++) {
    const next = decodeOnce(name);
    if (next === name) break;
    name = next;
  }
  return name
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "");
}

/** Whether a query parameter (by its raw name) carries a key. */
export function isKeyParam(rawName: string): boolean {
  return normalizedParamName(rawName).includes("apikey");
}

/** A request URL (path and query, as received) with the value of every key parameter written `***`. */
export function redactUrl(url: string): string {
  const mark = url.indexOf("?");
  if (mark === -1) return url;
  const pairs = url
    .slice(mark + 1)
    .split("&")
    .map((pair) => {
      const equals = pair.indexOf("=");
      const name = equals === -1 ? pair : pair.slice(0, equals);
      if (!isKeyParam(name)) return pair;
      return `${name}=***`;
    });
  return `${url.slice(0, mark)}?${pairs.join("&")}`;
}
