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
