/** A CSV of recipients numbered `ns`, each one the sandbox accepts. */
export function recipientsCsv(ns: number[]): string {
  const lines = ns.map((n) => `Ada${n},Lovelace,${100 + n} Main St,Springfield,IL,62701`);
  return `firstName,lastName,address1,city,state,zipCode\n${lines.join("\n")}\n`;
}

/**
 * A campaign file of two inline recipients. `zip` changes the first recipient's ZIP code, `pay`
 * adds a checkout, `retain` sets `retain: true`. With `file`, the recipients are that file's
 * instead (line 9), keyed by `keyColumn` if given (line 10), with the `recipients` settings given
 * after (`maxDroppedPercent: 10`, line 11 under a key column).
 */
export function campaignYaml(
  name: string,
  templateId: number,
  options: {
    pay?: boolean;
    retain?: boolean;
    zip?: string;
    file?: string;
    keyColumn?: string;
    recipients?: string[];
  } = {},
): string {
  const recipients = options.file
    ? [
        `    file: ${options.file}`,
        ...(options.keyColumn ? [`    keyColumn: ${options.keyColumn}`] : []),
        ...(options.recipients ?? []).map((line) => `    ${line}`),
      ]
    : [
        "    inline:",
        "      - { firstName: Ada, lastName: Lovelace, address1: 1 Main St, city: Springfield, state: IL, " +
          `zipCode: "${options.zip ?? "62701"}" }`,
        '      - { firstName: Alan, lastName: Turing, address1: 2 Main St, city: Springfield, state: IL, zipCode: "62701" }',
      ];
  return [
    "apiVersion: directmail/v1",
    "kind: Campaign",
    "metadata:",
    `  name: ${name}`,
    "spec:",
    "  order:",
    `    templateId: ${templateId}`,
    "  recipients:",
    ...recipients,
    ...(options.pay ? ["  checkout:", "    postageType: Standard", "    productionSpeed: Normal"] : []),
    ...(options.retain ? ["  retain: true"] : []),
    "",
  ].join("\n");
}

/** A proximity search the sandbox accepts: two addresses around one store, mailed from it. */
export const PROXIMITY_SEARCH = {
  name: "Around the store",
  addresses: [{ address1: "200 Elm St", city: "Springfield", state: "IL", zip: "62701", desiredCount: 2 }],
  returnFirstName: "Shop",
  returnLastName: "Owner",
  returnAddress1: "1 Market St",
  returnCity: "Springfield",
  returnState: "IL",
  returnZip: "62701",
};
