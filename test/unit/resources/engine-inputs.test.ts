/**
 * The inputs the engine stores are the program's declaration: `pulumi refresh --run-program` shows
 * any other stored input as removed. Computed inputs travel under hidden names, defaults are
 * filled again for the hooks, and a state of an earlier release (plain names, defaults written out)
 * still reads.
 */
import { describe, expect, it } from "vitest";
import { fromEngineInputs, toEngineInputs } from "../../../provider/resources/engine-inputs";

describe("the inputs the engine stores", () => {
  it("hides what check computes, and leaves out a default the program did not declare", () => {
    const declared = { orderId: 7, file: "list.csv" };
    const checked = {
      ...declared,
      identityField: "custom6",
      digest: "d1",
      declaredCount: 3,
      duplicateRows: 0,
    };
    const stored = toEngineInputs("OrderRecipients", checked, declared);
    expect(stored).toEqual({
      orderId: 7,
      file: "list.csv",
      __digest: "d1",
      __declaredCount: 3,
      __duplicateRows: 0,
    });
    expect(fromEngineInputs("OrderRecipients", stored)).toEqual(checked);
  });

  it("keeps a default the program declared, and a value check normalized", () => {
    const declared = { orderId: 7, postageType: "Standard", productionSpeed: "Normal", autoBill: true };
    expect(toEngineInputs("Checkout", declared, declared)).toEqual(declared);
    const left = { orderId: 7, postageType: "Standard", productionSpeed: "Normal" };
    expect(toEngineInputs("Checkout", { ...left, autoBill: true }, left)).toEqual(left);
    expect(toEngineInputs("Checkout", { ...left, autoBill: false }, left)).toEqual({
      ...left,
      autoBill: false,
    });
    expect(fromEngineInputs("Checkout", left)).toMatchObject({ autoBill: true });
  });

  it("keeps the engine's own property, reads a state of an earlier release, and leaves a new resource's empty olds", () => {
    const earlier = {
      __provider: "serialized",
      orderId: 7,
      file: "a.csv",
      digest: "d0",
      identityField: "custom6",
    };
    expect(fromEngineInputs("OrderRecipients", earlier)).toEqual(earlier);
    expect(fromEngineInputs("OrderRecipients", {})).toEqual({});
    expect(toEngineInputs("Unknown", { a: 1 }, {})).toEqual({ a: 1 });
  });
});
