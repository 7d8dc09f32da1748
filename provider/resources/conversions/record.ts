/**
 * A declared conversion record as the service's `ConversionRecord`: JSON objects as they are, CSV
 * rows flattened (`address1` ... fill `primaryAddress`, `secondaryAddress.city` is dotted). Only
 * what the service would silently drop (an unknown field) or cannot read (a value that is not
 * text) is refused here; everything else is the service's to judge, record by record.
 */
import { ConversionAddress, ConversionRecord } from "../../api/schemas/conversions";
import { shown } from "../../text";
import type { RecordShape } from "../records/source";

const RECORD_FIELDS = new Set(Object.keys(ConversionRecord.shape));
const ADDRESS_FIELDS = new Set(Object.keys(ConversionAddress.shape));
const ADDRESSES = new Set(["primaryAddress", "secondaryAddress"]);
/** Flat columns that fill `primaryAddress` (`zip` is the usual spelling of `zipCode`). */
const PRIMARY_ALIASES = new Map<string, string>([
  ...[...ADDRESS_FIELDS].map((f) => [f, f] as [string, string]),
  ["zip", "zipCode"],
]);

type Problem = { field?: string; message: string };

function text(value: unknown, field: string, problems: Problem[]): string | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  problems.push({ field, message: `${field} must be text` });
  return undefined;
}

export const conversionShape: RecordShape<Record<string, unknown>> = {
  noun: "conversion record",
  shape(row) {
    const problems: Problem[] = [];
    const record: Record<string, unknown> = {};
    const address = (name: string): Record<string, string> => {
      const current = record[name];
      if (current && typeof current === "object") return current as Record<string, string>;
      const made: Record<string, string> = {};
      record[name] = made;
      return made;
    };
    for (const [name, value] of Object.entries(row)) {
      const [head, sub, ...rest] = name.split(".");
      if (head !== undefined && ADDRESSES.has(head) && sub !== undefined && rest.length === 0) {
        if (!ADDRESS_FIELDS.has(sub)) {
          problems.push({
            field: name,
            message: `unknown address field "${shown(sub)}"; an address has ${[...ADDRESS_FIELDS].join(", ")}`,
          });
          continue;
        }
        const v = text(value, name, problems);
        if (v !== undefined) address(head)[sub] = v;
        continue;
      }
      if (ADDRESSES.has(name)) {
        if (value === undefined || value === null) continue;
        if (typeof value !== "object" || Array.isArray(value)) {
          problems.push({ field: name, message: `${name} must be an object of address fields` });
          continue;
        }
        for (const [sub, v] of Object.entries(value)) {
          if (!ADDRESS_FIELDS.has(sub)) {
            problems.push({
              field: `${name}.${sub}`,
              message: `unknown address field "${shown(sub)}"; an address has ${[...ADDRESS_FIELDS].join(", ")}`,
            });
            continue;
          }
          const t = text(v, `${name}.${sub}`, problems);
          if (t !== undefined) address(name)[sub] = t;
        }
        continue;
      }
      if (RECORD_FIELDS.has(name)) {
        const v = text(value, name, problems);
        if (v !== undefined) record[name] = v;
        continue;
      }
      const primary = PRIMARY_ALIASES.get(name);
      if (primary !== undefined) {
        const v = text(value, name, problems);
        if (v !== undefined) address("primaryAddress")[primary] = v;
        continue;
      }
      problems.push({
        field: name,
        message: `unknown field "${shown(name)}"; a conversion record has ${[...RECORD_FIELDS].join(", ")}`,
      });
    }
    return problems.length > 0 ? { problems } : { record };
  },
};

/**
 * A problem the service reported for a submitted batch, as `[index].field: message`: the record's
 * place in the batch, and the rest of the message. Undefined for a message about no one record.
 */
export function recordProblemOf(message: string): { index: number; text: string } | undefined {
  const match = /^\[(\d+)\]\.?(.*)$/s.exec(message);
  if (!match) return undefined;
  return { index: Number(match[1]), text: match[2] ?? "" };
}
