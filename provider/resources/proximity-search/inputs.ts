/**
 * What a `ProximitySearch` declares: the service's proximity request (entry 16) in the program's
 * spelling (`returnFirstName` for `ReturnFirstName`). Its rules (return address, ranges, counts)
 * are the request schema's, applied before sending (provider.ts).
 */
import { z } from "zod";

const range = () =>
  z
    .strictObject({
      /** Lowest value (inclusive). */
      min: z.int("min must be a whole number"),
      /** Highest value (inclusive). */
      max: z.int("max must be a whole number"),
    })
    .optional();
const text = () => z.string().optional();

/** A centre address, and how many neighbours to find around it. */
export const ProximityAddressFields = {
  address1: z.string(),
  address2: z.string().optional(),
  city: z.string(),
  state: z.string(),
  zip: z.string(),
  /** How many addresses to find around this one (at least 1). */
  desiredCount: z.int("desiredCount must be a whole number"),
};

/** The fields a ProximitySearch declares. None can change once it ran (a search is paid and mails). */
export const ProximitySearchInputFields = {
  /** The integration order (automation) that mails the addresses found. */
  integrationOrderId: z
    .int("integrationOrderId must be a whole number: the id of an integration order")
    .positive(),
  /** The search's name at the service. */
  name: z.string(),
  /** Owner or renter filter (enumerated by the service; meanings not shown). */
  ownerOrRenterFilter: z.int().optional(),
  /** Property type filter (enumerated by the service; meanings not shown). */
  propertyTypeFilter: z.int().optional(),
  /** Household income range. */
  houseHoldIncomeFilter: range(),
  /** Length of residence range, in years. */
  lengthOfResidenceFilter: range(),
  /** Year built range. */
  yearBuiltFilter: range(),
  /** Home price range. */
  homePriceFilter: range(),
  /** The centre addresses (at least one). */
  addresses: z.array(z.strictObject(ProximityAddressFields)),
  /** Whether an address may be used more than once. */
  multiUse: z.boolean().optional(),
  /** Return address for every recipient found: title. */
  returnTitle: text(),
  /** Return first name; given with returnLastName. */
  returnFirstName: text(),
  /** Return last name; given with returnFirstName. */
  returnLastName: text(),
  /** Return organization. */
  returnOrganization: text(),
  /** Return street line: required when any other return field is given. */
  returnAddress1: text(),
  /** Return second line. */
  returnAddress2: text(),
  /** Return city: required with returnAddress1. */
  returnCity: text(),
  /** Return state: required with returnAddress1. */
  returnState: text(),
  /** Return ZIP code: required with returnAddress1. */
  returnZip: text(),
};
export const ProximitySearchInputs = z.strictObject(ProximitySearchInputFields);
export type ProximitySearchInputs = z.infer<typeof ProximitySearchInputs>;
