/**
 * The dynamic-provider host's patch (runtime/host-requests.ts): the hooks get the request's old
 * inputs and timeout, and a diff's answer names what changed. Driven here on the SDK's own messages,
 * in the host's order of calls; library-shapes.test.ts checks the host still calls in that order.
 */
import { createRequire } from "node:module";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { answerWithNames, hostRequestOf } from "../../../provider/host-request";
import { namedDiff } from "../../../provider/resources/named-diff";
import { patchHostRequests } from "../../../provider/runtime/host-requests";

const hostEntry = path.join(
  path.dirname(require.resolve("@pulumi/pulumi/package.json")),
  "cmd/dynamic-provider/index.js",
);
const fromHost = createRequire(hostEntry);
const P = fromHost("../../proto/provider_pb");
const { Struct } = fromHost("google-protobuf/google/protobuf/struct_pb");

describe("the host's requests and diff answers, patched", () => {
  expect(patchHostRequests(P)).toBe(true);
  expect(patchHostRequests(P)).toBe(true); // a second install changes nothing

  it("gives a diff's hook the stored inputs before, on the very values it is handed, never enumerable", () => {
    const req = new P.DiffRequest()
      .setOlds(Struct.fromJavaScript({ orderId: 7, status: "draft" }))
      .setOldInputs(Struct.fromJavaScript({ templateId: 1 }));
    const olds = req.getOlds().toJavaScript();
    expect(olds).toEqual({ orderId: 7, status: "draft" });
    expect(Object.keys(olds)).toEqual(["orderId", "status"]);
    expect(JSON.stringify(olds)).toBe('{"orderId":7,"status":"draft"}');
    expect(hostRequestOf(olds)).toEqual({ oldInputs: { templateId: 1 } });
  });

  it("gives a create, an update and a delete their customTimeouts", () => {
    const props = Struct.fromJavaScript({ a: 1 });
    const create = new P.CreateRequest().setProperties(props).setTimeout(2);
    expect(hostRequestOf(create.getProperties().toJavaScript())).toEqual({ timeoutSeconds: 2 });
    const update = new P.UpdateRequest().setNews(props).setTimeout(3);
    expect(hostRequestOf(update.getNews().toJavaScript())).toEqual({ timeoutSeconds: 3 });
    const remove = new P.DeleteRequest().setProperties(props);
    expect(hostRequestOf(remove.getProperties().toJavaScript())).toEqual({ timeoutSeconds: 0 });
  });

  /** What the host does with a diff hook's result (cmd/dynamic-provider/index.js, `diff`). */
  function hostAnswer(result: { changes?: boolean; replaces?: string[] }) {
    const resp = new P.DiffResponse();
    if (result.changes === true) resp.setChanges(P.DiffResponse.DiffChanges.DIFF_SOME);
    else if (result.changes === false) resp.setChanges(P.DiffResponse.DiffChanges.DIFF_NONE);
    else resp.setChanges(P.DiffResponse.DiffChanges.DIFF_UNKNOWN);
    if (result.replaces && result.replaces.length !== 0) resp.setReplacesList(result.replaces);
    return resp;
  }

  it("answers an update with the user's names, the computed `__` inputs named by their source", () => {
    const olds = { orderId: 7, file: "r.csv", __digest: "x" };
    const news = { orderId: 8, file: "r.csv", __digest: "y" };
    const names = namedDiff(olds, news, { changes: true, replaces: ["orderId"] });
    const resp = hostAnswer(answerWithNames({ replaces: names.replaces }, names));
    expect(resp.getChanges()).toBe(P.DiffResponse.DiffChanges.DIFF_SOME);
    expect(resp.getDiffsList()).toEqual(["orderId", "file"]);
    expect(resp.getHasdetaileddiff()).toBe(true);
    const detail = Object.fromEntries(
      resp
        .getDetaileddiffMap()
        .getEntryList()
        .map(([key, diff]: [string, [number, boolean]]) => [key, diff]),
    );
    expect(detail).toEqual({
      orderId: [P.PropertyDiff.Kind.UPDATE_REPLACE, true],
      file: [P.PropertyDiff.Kind.UPDATE, true],
    });
    expect(resp.getReplacesList()).toEqual(["orderId"]);
  });

  it("leaves an answer with no names as the host makes it, and never carries names to the next answer", () => {
    const names = namedDiff({ a: 1 }, { a: 2 }, { changes: true });
    const read = answerWithNames({}, names);
    expect(read.changes).toBe(true); // read by another than the host, before an answer of no changes
    const plain = hostAnswer({ changes: false });
    expect(plain.getDiffsList()).toEqual([]);
    expect(plain.getHasdetaileddiff()).toBe(false);
    const none = hostAnswer(answerWithNames({}, namedDiff({ a: 1 }, { a: 1 }, {})));
    expect(none.getChanges()).toBe(P.DiffResponse.DiffChanges.DIFF_NONE);
    expect(none.getDiffsList()).toEqual([]);
  });

  it("gives each of many diffs at once its own names", async () => {
    const answers = await Promise.all(
      ["a", "b", "c"].map(async (key, i) => {
        await new Promise((resolve) => setTimeout(resolve, 3 - i));
        const names = namedDiff({}, { [key]: 1 }, { changes: true });
        return hostAnswer(answerWithNames({}, names)).getDiffsList();
      }),
    );
    expect(answers).toEqual([["a"], ["b"], ["c"]]);
  });
});
