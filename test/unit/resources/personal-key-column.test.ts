/**
 * A key column shows in reviews and in the state: a column of personal data cannot be one, in a
 * program's OrderRecipients (its check hook) or in a campaign file (the loader, and so
 * `directmail validate`, the CampaignFolder and the review).
 */
import { afterAll, describe, expect, it } from "vitest";
import { loadCampaignFiles } from "../../../provider/campaign/loader";
import { isPersonalColumn, PERSONAL_COLUMNS, PERSONAL_FIELDS } from "../../../provider/recipients/index";
import { checkInputs } from "../../../provider/resources/check";
import { OrderRecipientsInputs } from "../../../provider/resources/order-recipients/inputs";
import { fileCampaign, GOOD_CSV, tempDir } from "../campaign/fixtures";

const refusal = (column: string) =>
  `"${column}" is personal data and would show in reviews and state; ` +
  "use a column that identifies the customer, such as a customer id";

const check = (keyColumn: string) =>
  checkInputs(OrderRecipientsInputs, { orderId: 7, file: "people.csv", keyColumn }).failures ?? [];

/** Other spellings of personal columns that a CSV exported elsewhere may carry. */
const SPELLINGS = [
  "Last Name",
  "last_name",
  "ZIP",
  "zip",
  "postal-code",
  "E-mail",
  "Street",
  "Phone Number",
  "Full Name",
];

describe("a personal column as keyColumn", () => {
  it.each([...PERSONAL_FIELDS, ...PERSONAL_COLUMNS, ...SPELLINGS])(
    "%s is refused by OrderRecipients' check, naming the column",
    (column) => {
      expect(check(column)).toEqual([{ property: "keyColumn", reason: refusal(column) }]);
    },
  );

  it.each(["customerId", "customer_id", "id", "accountNumber", "custom1", "country"])(
    "%s, which identifies a customer without personal data, is accepted",
    (column) => {
      expect(isPersonalColumn(column)).toBe(false);
      expect(check(column)).toEqual([]);
    },
  );

  it("names, address lines, city, state, ZIP, e-mail, phone and salutation are all personal", () => {
    for (const column of ["firstName", "lastName", "address1", "address2", "city", "state", "zipCode"])
      expect(isPersonalColumn(column)).toBe(true);
    for (const column of ["email", "phone", "salutation", "toOrganization", "returnLastName"])
      expect(isPersonalColumn(column)).toBe(true);
  });
});

describe("a campaign file with a personal keyColumn", () => {
  const tmp = tempDir("directmail-personal-key-");
  afterAll(tmp.remove);

  it("is refused once, at the keyColumn's value, naming the column", async () => {
    tmp.write("people.csv", GOOD_CSV);
    const file = tmp.write("spring.yaml", fileCampaign("spring", "people.csv", "lastName"));
    const { problems } = await loadCampaignFiles([file]);
    expect(problems.map((p) => `${p.file}:${p.line}:${p.column}: ${p.message}`)).toEqual([
      `${file}:10:16: spec.recipients.keyColumn: ${refusal("lastName")}`,
    ]);
  });

  it("with an id column instead loads without a problem", async () => {
    const file = tmp.write("autumn.yaml", fileCampaign("autumn", "people.csv", "customerId"));
    expect((await loadCampaignFiles([file])).problems).toEqual([]);
  });
});
