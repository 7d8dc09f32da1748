/**
 * pulumi-directmail: printed direct-mail campaigns as Pulumi resources.
 */

// First: the modules loaded after it come from Node's compile cache (see runtime/compile-cache.ts).
import "./runtime/compile-cache";
import { installInProgram } from "./runtime";

// The program's process: the runtime's patches (docs/architecture.md, "The runtime's patches").
installInProgram();

// The typed API client: `import { DirectMailClient } from "pulumi-directmail"`.
export * as api from "./api";
export {
  type CallOptions,
  DirectMailClient,
  type DirectMailClientOptions,
  newOrderRecipient,
  type OrderRecipientInput,
  type TransportOptions,
} from "./api";
export * from "./api/errors";
export { Campaign, type CampaignArgs } from "./campaign/component";
/**
 * A folder of campaign files deployed in one line, one `Campaign` per document:
 * `export = new CampaignFolder("campaigns", { dir: "campaigns" }).outputs;`
 */
export { CampaignFolder, type CampaignFolderArgs, type CampaignOutputs } from "./campaign/folder";
export {
  type CampaignProblem,
  formatProblems,
  type LoadedCampaign,
  type LoadOptions,
  type LoadResult,
  loadCampaignFiles,
  loadCampaignsDir,
} from "./campaign/loader";
export { CAMPAIGN_API_VERSION, CampaignDocument } from "./campaign/schema";
/** The folder a campaign's files stay inside (`LoadOptions.root`), and its two kinds. */
export { campaignFolderRoot, type FileRoot, OutsideRootError, projectFileRoot } from "./file-root";
/** Data functions: read templates, fonts, an order and orders' analytics without declaring a resource. */
export {
  getFonts,
  getFontsOutput,
  getOrder,
  getOrderAnalytics,
  getOrderAnalyticsOutput,
  getOrderOutput,
  getTemplates,
  getTemplatesOutput,
  lookupSettings,
  type ServiceOptions,
} from "./lookups/data-functions";
/** What the loader predicts the service will drop of a campaign's recipients (`LoadedCampaign.predictedDrops`). */
export type { PredictedDrops } from "./recipients/index";
export {
  DeclaredRecipient,
  IDENTITY_FIELDS,
  type IdentityField,
  RecipientFields,
} from "./recipients/index";
export { AddressBookEntryInputFields, AddressBookEntryInputs } from "./resources/address-book-entry/inputs";
export {
  AddressBookEntryOutputFields,
  type AddressBookEntryOutputs,
} from "./resources/address-book-entry/outputs";
export { AddressBookEntry, type AddressBookEntryArgs } from "./resources/address-book-entry/resource";
export {
  AutomationRecipientsInputFields,
  AutomationRecipientsInputs,
} from "./resources/automation-recipients/inputs";
export {
  AutomationRecipientsOutputFields,
  type AutomationRecipientsOutputs,
  type RefusedRecipient,
  RefusedRecipientFields,
} from "./resources/automation-recipients/outputs";
export {
  AutomationRecipients,
  type AutomationRecipientsArgs,
} from "./resources/automation-recipients/resource";
export { CheckoutInputFields, CheckoutInputs } from "./resources/checkout/inputs";
export { CheckoutOutputFields, type CheckoutOutputs } from "./resources/checkout/outputs";
export { Checkout, type CheckoutArgs } from "./resources/checkout/resource";
export { ConversionsInputFields, ConversionsInputs } from "./resources/conversions/inputs";
export {
  ConversionsOutputFields,
  type ConversionsOutputs,
  type ConversionUpload,
  ConversionUploadFields,
  type RejectedRecord,
  RejectedRecordFields,
} from "./resources/conversions/outputs";
export { Conversions, type ConversionsArgs } from "./resources/conversions/resource";
export { OrderInputFields, OrderInputs } from "./resources/order/inputs";
export { OrderOutputFields, type OrderOutputs } from "./resources/order/outputs";
export { Order, type OrderArgs } from "./resources/order/resource";
export {
  OrderRecipientsInputFields,
  OrderRecipientsInputs,
  type Recipient,
} from "./resources/order-recipients/inputs";
export {
  type DropSample,
  DropSampleFields,
  type ImageIssueSample,
  ImageIssueSampleFields,
  OrderRecipientsOutputFields,
  type OrderRecipientsOutputs,
} from "./resources/order-recipients/outputs";
export {
  OrderRecipients,
  type OrderRecipientsArgs,
  type RecipientListArgs,
} from "./resources/order-recipients/resource";
export { ProviderInfoInputFields, ProviderInfoInputs } from "./resources/provider-info/inputs";
export { ProviderInfoOutputFields, type ProviderInfoOutputs } from "./resources/provider-info/outputs";
export { ProviderInfo, type ProviderInfoArgs } from "./resources/provider-info/resource";
export {
  ProximityAddressFields,
  ProximitySearchInputFields,
  ProximitySearchInputs,
} from "./resources/proximity-search/inputs";
export {
  ProximitySearchOutputFields,
  type ProximitySearchOutputs,
} from "./resources/proximity-search/outputs";
export { ProximitySearch, type ProximitySearchArgs } from "./resources/proximity-search/resource";
export type {
  ArgsOf,
  Fields,
  InputOf,
  Inputs,
  InputValue,
  OutputOf,
  OutputProperties,
  RequiredKeys,
} from "./resources/types";
export {
  type ConfigReader,
  DEFAULT_SANDBOX_URL,
  isLocalSandbox,
  type ProviderSettings,
  resolveBaseUrl,
  resolveSettings,
  SettingsError,
} from "./settings";
