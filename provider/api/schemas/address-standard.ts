/**
 * How the service standardizes an address line, a city and a state (USPS Publication 28), as the
 * sandbox applies it and as the provider reads it back: the service returns recipients in this
 * form, never byte-equal to what was sent. The sandbox's rules are listed in docs/sandbox.md
 * ("Addresses"); keep the two in step.
 */

export const STATES: Record<string, string> = {
  ALABAMA: "AL",
  ALASKA: "AK",
  ARIZONA: "AZ",
  ARKANSAS: "AR",
  CALIFORNIA: "CA",
  COLORADO: "CO",
  CONNECTICUT: "CT",
  DELAWARE: "DE",
  "DISTRICT OF COLUMBIA": "DC",
  FLORIDA: "FL",
  GEORGIA: "GA",
  HAWAII: "HI",
  IDAHO: "ID",
  ILLINOIS: "IL",
  INDIANA: "IN",
  IOWA: "IA",
  KANSAS: "KS",
  KENTUCKY: "KY",
  LOUISIANA: "LA",
  MAINE: "ME",
  MARYLAND: "MD",
  MASSACHUSETTS: "MA",
  MICHIGAN: "MI",
  MINNESOTA: "MN",
  MISSISSIPPI: "MS",
  MISSOURI: "MO",
  MONTANA: "MT",
  NEBRASKA: "NE",
  NEVADA: "NV",
  "NEW HAMPSHIRE": "NH",
  "NEW JERSEY": "NJ",
  "NEW MEXICO": "NM",
  "NEW YORK": "NY",
  "NORTH CAROLINA": "NC",
  "NORTH DAKOTA": "ND",
  OHIO: "OH",
  OKLAHOMA: "OK",
  OREGON: "OR",
  PENNSYLVANIA: "PA",
  "RHODE ISLAND": "RI",
  "SOUTH CAROLINA": "SC",
  "SOUTH DAKOTA": "SD",
  TENNESSEE: "TN",
  TEXAS: "TX",
  UTAH: "UT",
  VERMONT: "VT",
  VIRGINIA: "VA",
  WASHINGTON: "WA",
  "WEST VIRGINIA": "WV",
  WISCONSIN: "WI",
  WYOMING: "WY",
  "PUERTO RICO": "PR",
  GUAM: "GU",
  "VIRGIN ISLANDS": "VI",
  "AMERICAN SAMOA": "AS",
  "NORTHERN MARIANA ISLANDS": "MP",
};
const STATE_CODES = new Set(Object.values(STATES));

/**
 * USPS Publication 28 abbreviations, by the place a word holds in the line: a street suffix, a
 * directional, a secondary unit designator. A word is abbreviated only in its place ("58 Gull Point
 * Road" is `58 GULL POINT RD`: POINT is part of the street name there, ROAD is the suffix).
 */
const SUFFIXES = new Map([
  ["STREET", "ST"],
  ["AVENUE", "AVE"],
  ["ROAD", "RD"],
  ["DRIVE", "DR"],
  ["BOULEVARD", "BLVD"],
  ["LANE", "LN"],
  ["COURT", "CT"],
  ["PLACE", "PL"],
  ["PARKWAY", "PKWY"],
  ["HIGHWAY", "HWY"],
  ["CIRCLE", "CIR"],
  ["TERRACE", "TER"],
  ["SQUARE", "SQ"],
  ["TRAIL", "TRL"],
  ["WAY", "WAY"],
  ["EXPRESSWAY", "EXPY"],
  ["FREEWAY", "FWY"],
  ["PLAZA", "PLZ"],
  ["POINT", "PT"],
  ["CENTER", "CTR"],
]);
const DIRECTIONALS = new Map([
  ["NORTH", "N"],
  ["SOUTH", "S"],
  ["EAST", "E"],
  ["WEST", "W"],
  ["NORTHEAST", "NE"],
  ["NORTHWEST", "NW"],
  ["SOUTHEAST", "SE"],
  ["SOUTHWEST", "SW"],
]);
const DESIGNATORS = new Map([
  ["APARTMENT", "APT"],
  ["SUITE", "STE"],
  ["FLOOR", "FL"],
  ["ROOM", "RM"],
  ["BUILDING", "BLDG"],
  ["DEPARTMENT", "DEPT"],
  ["UNIT", "UNIT"],
  ["TRAILER", "TRLR"],
  ["SPACE", "SPC"],
  ["LOT", "LOT"],
]);

/** Every word of a kind, spelled out or already abbreviated. */
const kind = (table: Map<string, string>) => new Set([...table.keys(), ...table.values()]);
const SUFFIX_WORDS = kind(SUFFIXES);
const DIRECTIONAL_WORDS = kind(DIRECTIONALS);
const DESIGNATOR_WORDS = kind(DESIGNATORS);
/** The words some rule may abbreviate: a line with none of them is already standard. */
const SPELLED_OUT = new Set(
  [SUFFIXES, DIRECTIONALS, DESIGNATORS].flatMap((t) => [...t].filter(([w, a]) => w !== a).map(([w]) => w)),
);

/** A line that is already clean once uppercased: words of letters, digits, - and /, single spaces. */
const CLEAN_LINE = /^[A-Z0-9/-]+(?: [A-Z0-9/-]+)*$/;
/** The number of a unit: a word with a digit (`4`, `4B`, `12-A`, `#4`) or a single letter (`B`). */
const UNIT_NUMBER = /^(?:#?[A-Z/-]*\d[A-Z0-9/-]*|[A-Z])$/;

/**
 * Uppercase; punctuation other than # - / becomes spaces; spaces collapse; `# 4` becomes `#4`.
 * An empty result is the empty line.
 */
function cleanLine(line: string): string {
  const upper = line.toUpperCase();
  // Most lines are clean: then the cleaning below changes nothing and is skipped.
  if (CLEAN_LINE.test(upper)) return upper;
  return upper
    .replace(/[.,;:'"!?()]/g, " ")
    .replace(/#\s*/g, "# ")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/# /g, "#");
}

/** Whether some word of `w` is one a rule may abbreviate (most lines are already abbreviated). */
function spelledOut(w: readonly string[]): boolean {
  for (const word of w) if (SPELLED_OUT.has(word)) return true;
  return false;
}

/** A designator followed by its number, or a `#` with its number, starts a unit at `i`. */
const unitAt = (w: string[], i: number) =>
  (DESIGNATOR_WORDS.has(w[i] as string) && UNIT_NUMBER.test(w[i + 1] ?? "")) ||
  ((w[i] as string).length > 1 && (w[i] as string).startsWith("#"));

/** The designators of a unit part (`w[from..]`) that stand before their number, abbreviated. */
function abbreviateUnits(w: string[], from: number): void {
  for (let i = from; i < w.length; i++) {
    const abbreviation = DESIGNATORS.get(w[i] as string);
    if (abbreviation !== undefined && UNIT_NUMBER.test(w[i + 1] ?? "")) w[i] = abbreviation;
  }
}

/**
 * `fn` with its answers remembered: a mailing list repeats few cities, states and streets. Only
 * short texts, at most 10,000 of them, so the memory stays small whatever the lists hold.
 */
export function remembered<T>(fn: (text: string) => T): (text: string) => T {
  const answers = new Map<string, T>();
  return (text) => {
    const known = answers.get(text);
    if (known !== undefined || answers.has(text)) return known as T;
    const answer = fn(text);
    if (text.length > 64) return answer;
    if (answers.size >= 10_000) answers.clear();
    answers.set(text, answer);
    return answer;
  };
}

/**
 * Address line 1, standardized (docs/sandbox.md, "Addresses"). After the house number (a first word
 * starting with a digit) comes the street, then possibly a unit (a designator followed by its number,
 * or `#4`). In the street: the last word is the suffix when a word comes before it; a directional
 * after the suffix, last, is the post-directional; a directional first is the pre-directional when
 * at least one word of the street name follows it before the suffix ("9 North Road" keeps NORTH as
 * its name). Only these words, and the unit's designators, are abbreviated.
 */
export function standardizeLine(line: string): string {
  const cleaned = cleanLine(line);
  const first = cleaned.charCodeAt(0);
  const space = cleaned.indexOf(" ");
  if (space > 0 && first >= 48 && first <= 57) {
    // The rules read the words after the house number alone, and a list repeats its streets: the
    // street's standard form is remembered, the number put back before it.
    const street = cleaned.slice(space + 1);
    const standard = streetOf(street);
    return standard === street ? cleaned : `${cleaned.slice(0, space)} ${standard}`;
  }
  return standardizeWords(cleaned, 0);
}

/** The words of a line after its house number (the street, then a unit), standardized. */
const streetOf = remembered((street: string) => standardizeWords(street, -1));

/**
 * The rules of `standardizeLine` on a cleaned line whose street starts at word `start` (0, or -1
 * for the words after a house number that is not part of `cleaned`).
 */
function standardizeWords(cleaned: string, from: 0 | -1): string {
  const w = cleaned.split(" ");
  if (!spelledOut(w)) return cleaned;
  // With the house number not in `w`, the street starts at 0 and positions after it are as in the
  // whole line; without, a first word starting with a digit, followed by a word, is the number.
  const first = (w[0] as string).charCodeAt(0);
  const start = from === -1 ? 0 : w.length > 1 && first >= 48 && first <= 57 ? 1 : 0;
  let end = w.length;
  for (let i = start + 1; i < w.length; i++) {
    if (unitAt(w, i)) {
      end = i;
      break;
    }
  }
  abbreviateUnits(w, end);
  const words = end - start;
  let suffix = -1;
  if (words >= 3 && DIRECTIONAL_WORDS.has(w[end - 1] as string) && SUFFIX_WORDS.has(w[end - 2] as string)) {
    suffix = end - 2;
    w[end - 1] = DIRECTIONALS.get(w[end - 1] as string) ?? (w[end - 1] as string);
  } else if (words >= 2 && SUFFIX_WORDS.has(w[end - 1] as string)) {
    suffix = end - 1;
  }
  if (suffix >= 0) w[suffix] = SUFFIXES.get(w[suffix] as string) ?? (w[suffix] as string);
  const nameEnd = suffix >= 0 ? suffix : end;
  if (nameEnd - start >= 2 && DIRECTIONALS.has(w[start] as string))
    w[start] = DIRECTIONALS.get(w[start] as string) as string;
  return w.join(" ");
}

/**
 * Address line 2, standardized: cleaned as line 1, and each unit designator that stands before its
 * number abbreviated (`Suite 200` is `STE 200`). Nothing else in it is a suffix or a directional.
 */
export function standardizeUnitLine(line: string): string {
  const cleaned = cleanLine(line);
  const w = cleaned.split(" ");
  if (!spelledOut(w)) return cleaned;
  abbreviateUnits(w, 0);
  return w.join(" ");
}

export function standardizeCity(city: string): string {
  return city.toUpperCase().replace(/[.,]/g, "").replace(/\s+/g, " ").trim();
}

export function standardizeState(state: string): string | undefined {
  const upper = state.toUpperCase().replace(/\./g, "").replace(/\s+/g, " ").trim();
  if (STATE_CODES.has(upper)) return upper;
  return STATES[upper];
}
