/** The `import` resource option on a dynamic resource: refused before registering, in one line. */
import * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import { KIND } from "../../../provider/resources/kinds";
import { resourceType } from "../../../provider/resources/thin-provider";

describe("resourceType with the `import` option, in a TypeScript program", () => {
  it("is the dynamic type without it", () => {
    expect(resourceType(KIND.Order, {})).toBe("pulumi-nodejs:dynamic/directmail:Order");
    expect(resourceType(KIND.Order)).toBe("pulumi-nodejs:dynamic/directmail:Order");
  });

  it("refuses an Order's import with its id, pointing to existingOrderId and the plugin's type", () => {
    const refusal = (() => {
      try {
        resourceType(KIND.Order, { import: "10009" });
      } catch (error) {
        return error as Error;
      }
    })();
    expect(refusal).toBeInstanceOf(pulumi.RunError);
    expect(refusal?.message).toBe(
      "The `import` resource option cannot adopt an Order in a TypeScript program: its dynamic provider cannot import. " +
        "Adopt order 10009 with the Order's input `existingOrderId: 10009` instead, or import it with the provider plugin: " +
        "`pulumi import directmail:index:Order NAME 10009` (docs/resources.md).",
    );
    expect(refusal?.stack).toBe(refusal?.message);
  });

  it("refuses another kind's, pointing to `pulumi up` and the plugin's type; an id that is no number is not quoted", () => {
    expect(() => resourceType(KIND.Checkout, { import: "x\u001b[31m" })).toThrow(
      "The `import` resource option cannot adopt a Checkout in a TypeScript program: its dynamic provider cannot import. " +
        "Declare the Checkout without `import` and run `pulumi up`: it finds what exists at the service rather than " +
        "creating it again; or use the provider plugin's type `directmail:index:Checkout` (docs/resources.md).",
    );
    expect(() => resourceType(KIND.Order, { import: "x\u001b[31m" })).toThrow(/Adopt order <order id> with/);
  });
});
