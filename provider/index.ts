/**
 * pulumi-directmail: printed direct-mail campaigns as Pulumi resources.
 */

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
export { AddressBookEntry, type AddressBookEntryArgs } from "./resources/address-book-entry";
export { Checkout, type CheckoutArgs } from "./resources/checkout";
export { Order, type OrderArgs } from "./resources/order";
export { type DropSample, OrderRecipients, type OrderRecipientsArgs } from "./resources/order-recipients";
export { ProviderInfo, type ProviderInfoArgs } from "./resources/provider-info";
export { IDENTITY_FIELDS, type IdentityField } from "./resources/recipients/declared";
export {
  type ConfigReader,
  DEFAULT_SANDBOX_URL,
  isLocalSandbox,
  type ProviderSettings,
  resolveBaseUrl,
  resolveSettings,
} from "./settings";
