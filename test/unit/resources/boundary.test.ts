/**
 * The provider's one way out of its hooks (resources/boundary.ts): every refusal, service error,
 * check failure and bug report reaches the user with the service's text cleaned (text.ts), and a
 * text it quotes cannot start a line of its own.
 */
import { describe, expect, it } from "vitest";
import { ValidationError } from "../../../provider/api/errors";
import { reported, reportedFailures } from "../../../provider/resources/boundary";
import { FailedAfterEffect, UserError } from "../../../provider/resources/user-error";
import { shown } from "../../../provider/text";
import { controlLaden, unsafeCharsIn } from "../../support/unsafe-chars";

const status = controlLaden("Paid");

describe("reported", () => {
  it("shows a refusal on one line, the status it quotes escaped", () => {
    const error = reported(
      new UserError(`Order 12 is "${status}": its recipients cannot change`),
      "Order",
      "update",
    );
    expect(error.message).toContain('Order 12 is "Paid\\u001b]0;owned\\u0007\\u001b[2J');
    expect(error.message).toContain(
      "\\u202egpj.exe\\u2066\\u200f\\u061c\\u2028\\u0000\\u007f\\r\\nerror: forged",
    );
    expect(unsafeCharsIn(error.message, { inLine: true })).toEqual([]);
  });

  it("keeps the lines of a refusal made of lines (each quoting with shown()), and cleans them", () => {
    const error = reported(
      new UserError(`problems:\n  row 2: "${shown(status)}"\n  row 3: ok\u009b2J`, true),
      "Records",
      "create",
    );
    expect(error.message.split("\n")).toHaveLength(3);
    expect(unsafeCharsIn(error.message)).toEqual([]);
  });

  it("shows a service error, a failure after effect and a bug's report cleaned", () => {
    const service = new ValidationError(`POST /v1/order → 400: ${status}`, {
      operationId: "createOrder",
      method: "POST",
      path: "/v1/order",
    });
    expect(unsafeCharsIn(reported(service, "Order", "create").message, { inLine: true })).toEqual([]);
    const after = reported(new FailedAfterEffect(`charged, then "${status}"`, "7", {}), "Checkout", "create");
    expect(unsafeCharsIn(after.message, { inLine: true })).toEqual([]);
    const bug = reported(new TypeError(`cannot read ${status}`), "Order", "read");
    expect(bug.message).toContain("This is a bug");
    expect(bug.message.split("\n").length).toBeGreaterThan(2);
    expect(unsafeCharsIn(bug.message)).toEqual([]);
  });

  it("cleans every check failure's reason, on one line", () => {
    const [failure] = reportedFailures([{ property: "templateId", reason: `template "${status}"` }]);
    expect(failure?.property).toBe("templateId");
    expect(unsafeCharsIn(failure?.reason ?? "", { inLine: true })).toEqual([]);
  });
});
