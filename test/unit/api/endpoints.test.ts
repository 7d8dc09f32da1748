import { describe, expect, it } from "vitest";
import { operations } from "../../../provider/api/endpoints";

describe("the endpoint table's per-operation facts", () => {
  it("every operation that may leave an unknown outcome says how to check it, and only those", () => {
    for (const def of operations) {
      const mayBeUnknown = def.retry !== "read" && def.retry !== "idempotent";
      expect(typeof def.howToCheck === "function", def.operationId).toBe(mayBeUnknown);
    }
  });

  it("an operation names the kind of its id exactly when its path has an {id}", () => {
    for (const def of operations) {
      expect(def.idKind !== undefined, def.operationId).toBe(def.path.includes("{id}"));
    }
  });

  it("only operations on an order can be refused for the order's status", () => {
    const sensitive = operations.filter((d) => d.statusSensitive).map((d) => d.operationId);
    expect(sensitive).toEqual([
      "deleteOrder",
      "appendRecipients",
      "deleteRecipients",
      "previewCheckout",
      "checkout",
    ]);
    for (const def of operations.filter((d) => d.statusSensitive)) expect(def.idKind).toBe("order");
  });

  it("the checkout's advice names the order and says not to send it again", () => {
    const checkout = operations.find((d) => d.operationId === "checkout");
    expect(checkout?.howToCheck?.(12)).toMatch(/^Do not send the checkout again\. .*getOrder\(12\)/);
  });
});
