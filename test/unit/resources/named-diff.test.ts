/** A diff by property name, as both doors send it: the user's names, never the computed `__` inputs. */
import { describe, expect, it } from "vitest";
import { detailedDiff, namedDiff } from "../../../provider/resources/named-diff";

describe("detailedDiff", () => {
  it("names changed, added and removed properties", () => {
    expect(detailedDiff({ a: 1, b: 2, c: 3 }, { a: 1, b: 5, d: 4 }, [])).toEqual({
      b: "UPDATE",
      c: "DELETE",
      d: "ADD",
    });
  });

  it("marks the properties the kind replaces on", () => {
    expect(detailedDiff({ templateId: 1 }, { templateId: 2 }, ["templateId"])).toEqual({
      templateId: "UPDATE_REPLACE",
    });
  });

  it("names a computed input's change by the property it is made from", () => {
    const olds = { orderId: 7, file: "r.csv", __digest: "x", __declaredCount: 2 };
    const news = { orderId: 7, file: "r.csv", __digest: "y", __declaredCount: 3 };
    expect(detailedDiff(olds, news, [])).toEqual({ file: "UPDATE" });
    const inline = detailedDiff({ recipients: [1], __digest: "x" }, { recipients: [2], __digest: "y" }, []);
    expect(inline).toEqual({ recipients: "UPDATE" });
  });
});

describe("namedDiff, what both doors send the engine", () => {
  it("sends no names when the kind says nothing changed", () => {
    expect(namedDiff({ a: 1 }, { a: 2 }, { changes: false })).toEqual({
      changes: false,
      replaces: [],
      detailed: {},
    });
  });

  it("names the change when the kind does not say, and says there is one", () => {
    expect(namedDiff({ a: 1 }, { a: 2 }, {})).toEqual({
      changes: true,
      replaces: [],
      detailed: { a: "UPDATE" },
    });
    expect(namedDiff({ a: 1 }, { a: 1 }, {})).toEqual({ changes: false, replaces: [], detailed: {} });
  });

  it("replaces on the user's names only, never a `__` input", () => {
    const olds = { orderId: 7, recipients: [1], __digest: "x" };
    const news = { orderId: 8, recipients: [2], __digest: "y" };
    expect(namedDiff(olds, news, { changes: true, replaces: ["orderId", "__digest"] })).toEqual({
      changes: true,
      replaces: ["orderId"],
      detailed: { orderId: "UPDATE_REPLACE", recipients: "UPDATE" },
    });
  });

  it("names a list's source when the kind finds a change the inputs do not show (drift read by refresh)", () => {
    const inputs = { orderId: 7, file: "list.csv", __digest: "x" };
    expect(namedDiff(inputs, { ...inputs }, { changes: true })).toEqual({
      changes: true,
      replaces: [],
      detailed: { file: "UPDATE" },
    });
    // A kind without a list names nothing it cannot point to.
    expect(namedDiff({ orderId: 7 }, { orderId: 7 }, { changes: true })).toEqual({
      changes: true,
      replaces: [],
      detailed: {},
    });
  });
});
