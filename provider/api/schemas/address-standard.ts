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

/** USPS Publication 28 abbreviations the sandbox applies, word by word, to address lines. */
const WORDS: Record<string, string> = {
  STREET: "ST",
  AVENUE: "AVE",
  ROAD: "RD",
  DRIVE: "DR",
  BOULEVARD: "BLVD",
  LANE: "LN",
  COURT: "CT",
  PLACE: "PL",
  PARKWAY: "PKWY",
  HIGHWAY: "HWY",
  CIRCLE: "CIR",
  TERRACE: "TER",
  SQUARE: "SQ",
  TRAIL: "TRL",
  WAY: "WAY",
  EXPRESSWAY: "EXPY",
  FREEWAY: "FWY",
  PLAZA: "PLZ",
  POINT: "PT",
  CENTER: "CTR",
  NORTH: "N",
  SOUTH: "S",
  EAST: "E",
  WEST: "W",
  NORTHEAST: "NE",
  NORTHWEST: "NW",
  SOUTHEAST: "SE",
  SOUTHWEST: "SW",
  APARTMENT: "APT",
  SUITE: "STE",
  FLOOR: "FL",
  ROOM: "RM",
  BUILDING: "BLDG",
  DEPARTMENT: "DEPT",
  UNIT: "UNIT",
  TRAILER: "TRLR",
  SPACE: "SPC",
  LOT: "LOT",
};

/** A line that is already clean once uppercased: words of letters, digits, - and /, single spaces. */
const CLEAN_LINE = /^[A-Z0-9/-]+(?: [A-Z0-9/-]+)*$/;

/** Uppercase, punctuation other than # - / removed, spaces collapsed, Publication 28 words abbreviated. */
export function standardizeLine(line: string): string {
  const upper = line.toUpperCase();
  // Most lines are clean: then the cleaning below changes nothing and is skipped.
  if (CLEAN_LINE.test(upper)) return abbreviate(upper);
  const cleaned = upper
    .replace(/[.,;:'"!?()]/g, " ")
    .replace(/#\s*/g, "# ")
    .replace(/\s+/g, " ")
    .trim();
  return abbreviate(cleaned).replace(/# /g, "#");
}

/** The words of a line (single spaces) with their Publication 28 abbreviations. */
function abbreviate(line: string): string {
  let out = "";
  let start = 0;
  for (;;) {
    const end = line.indexOf(" ", start);
    const word = end < 0 ? line.slice(start) : line.slice(start, end);
    out += (start === 0 ? "" : " ") + (WORDS[word] ?? word);
    if (end < 0) return out;
    start = end + 1;
  }
}

export function standardizeCity(city: string): string {
  return city.toUpperCase().replace(/[.,]/g, "").replace(/\s+/g, " ").trim();
}

export function standardizeState(state: string): string | undefined {
  const upper = state.toUpperCase().replace(/\./g, "").replace(/\s+/g, " ").trim();
  if (STATE_CODES.has(upper)) return upper;
  return STATES[upper];
}
