/** A CSV of recipients numbered `ns`, each one the sandbox accepts. */
export function recipientsCsv(ns: number[]): string {
  const lines = ns.map((n) => `Ada${n},Lovelace,${100 + n} Main St,Springfield,IL,62701`);
  return `firstName,lastName,address1,city,state,zipCode\n${lines.join("\n")}\n`;
}
