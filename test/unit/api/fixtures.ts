/** Valid wire payloads for unit tests (each one parses with its schema; schemas.test.ts checks that). */
import { newOrderRecipient } from "../../../provider/api/recipients";
import type * as S from "../../../provider/api/schemas";
import { successEnvelope } from "../../support/envelope";

export const ORIGIN = "http://directmail.test";
export const API_KEY = "dm_test_9f8e7d6c5b4a3210SECRET";

export const profile: S.Profile = {
  id: 7,
  aadId: "0f8fad5b-d9cb-469f-a165-70867728950e",
  email: "ops@example.com",
  firstName: "Ada",
  lastName: "Lovelace",
  company: "Example Co",
  created: "2026-01-02T03:04:05Z",
  shouldProcessQrCodes: true,
};

export function envelope<P>(payload: P, extra: Partial<Record<string, unknown>> = {}) {
  return successEnvelope(profile, payload, extra);
}

export function errorEnvelope(errorCode: string, errors: string[], payload: unknown = null) {
  return {
    profile,
    payload,
    errorCode,
    errors,
    hasErrors: true,
    warnings: [],
    hasWarnings: false,
    errorDetails: [],
    metadata: {},
  };
}

export const recipient: S.OrderRecipient = newOrderRecipient({
  id: 101,
  address: { address1: "1 Main St", city: "Springfield", state: "IL", zipCode: "62701", country: "US" },
  personal: { firstName: "Grace", lastName: "Hopper" },
  metadata: { custom1: "VIP", fullAddress: "1 Main St, Springfield, IL 62701", dpvConfirmationCode: "Y" },
});

export const appendResult: S.AppendResult = {
  orderId: 12,
  status: "Success",
  totalRecipients: 1,
  submittedRecipients: 1,
  acceptedRecipients: 1,
  droppedRecipients: 0,
  deliverable: { addressValidated: 1, addressInvalidated: 0 },
  undeliverable: { duplicated: 0, doNotMail: 0, invalidAddress: 0, undeliverableRecipients: [] },
  variableImages: {
    summary: {
      accepted: 0,
      aspectRatioMismatch: 0,
      lowDpi: 0,
      unsupportedOrBroken: 0,
      missing: 0,
      doesNotExist: 0,
    },
    recipientsWithIssues: [],
  },
};

export const orderSummary: S.OrderSummary = {
  orderId: 12,
  orderStatus: "Draft",
  product: "Handwritten Postcard",
  postageType: "Standard",
  templateId: 3,
  createdDate: "2026-01-02T03:04:05Z",
  updatedDate: "2026-01-02T03:04:05Z",
  recipientCount: 1,
};

export const lineItem: S.LineItem = {
  tax: 0,
  rate: 2.5,
  total: 2.5,
  name: "Handwritten Postcard",
  quantity: 1,
  transactionType: "LineItemDebit",
  transactionSubType: "HandWrittenPostCard",
  subItems: [
    {
      tax: 0,
      rate: 0,
      total: 0,
      name: "Postage",
      quantity: 1,
      transactionType: "LineItemDebit",
      transactionSubType: "Postage",
      subItems: [],
    },
  ],
};

export const checkoutPreview: S.CheckoutPreview = {
  orderId: 12,
  status: "Success",
  lineItems: [lineItem],
  credits: [],
  totalCharges: 2.5,
  totalTax: 0,
  totalCredits: 0,
  balance: 100,
  productionSpeeds: {
    Normal: "2026-01-05T00:00:00Z",
    ExpeditedFaster: "2026-01-04T00:00:00Z",
    ExpeditedFastest: "2026-01-03T00:00:00Z",
    HailTrace: null,
  },
  productionSpeedPrices: { Normal: 0, ExpeditedFaster: 0.1 },
  postageTypePrices: { Standard: 0, FirstClass: 0.2 },
  estimatedDeliveryDateMin: "2026-01-08T00:00:00Z",
  estimatedDeliveryDateMax: "2026-01-10T00:00:00Z",
};

export const checkoutResult: S.CheckoutResult = {
  orderId: 12,
  status: "Success",
  orderStatus: "Payment Needed",
  pollAfterSeconds: 1,
  settlementExpectedWithinSeconds: 10,
};

export const analytics: S.OrderAnalytics = {
  orderId: null,
  status: "Success",
  orders: [
    {
      orderId: 12,
      status: "Success",
      qrCode: {
        totalScans: 2,
        lastScan: "2026-01-09T10:00:00Z",
        recipients: [{ id: 101, firstName: "Grace", lastName: "Hopper", totalScans: "2", lastScan: null }],
      },
      totalCards: 1,
      mailed: 0,
      inTransit: 0,
      localFacility: 0,
      delivered: 1,
      undeliverable: 0,
      waitingUSPS: 0,
      paidDate: "2026-01-02T04:00:00Z",
      maxEstimatedDeliveredDate: null,
      minEstimatedDeliveredDate: null,
      postageType: "Standard",
      orderStatus: "Mailed",
      campaignName: "Spring",
      product: "Handwritten Postcard",
      productionSpeed: "Normal",
    },
  ],
};

const breakdown = { basePrice: 2.5, doubleSided: 0, postagePrice: 0, extraText: 0, expedited: 0 };
export const transactions: S.OrderTransactionReport = {
  orderId: null,
  status: "Success",
  orders: [
    {
      orderId: 12,
      status: "Success",
      volume: 1,
      totalPrice: 2.5,
      costPerPiece: 2.5,
      email: "ops@example.com",
      product: "Handwritten Postcard",
      orderStatus: "Paid",
      orderUpdatedDate: "2026-01-02T04:00:00Z",
      paidDate: "2026-01-02T04:00:00Z",
      createdDate: "2026-01-02T03:04:05Z",
      profileId: 7,
      isCredit: false,
      transactionType: "LineItemDebit",
      transactionSubType: "HandWrittenPostCard",
      detail: breakdown,
      discount: { ...breakdown, basePrice: 0 },
      transactions: [
        {
          id: 900,
          orderId: 12,
          customerSubscriptionId: null,
          amount: 2.5,
          description: "Order 12",
          createdDate: "2026-01-02T04:00:00Z",
          updatedDate: null,
          profileId: 7,
          transactionType: "LineItemDebit",
          transactionSubType: "HandWrittenPostCard",
          isCredit: false,
          recipientSearchId: null,
          recipientEnrichmentOrderId: null,
          radiusMailOrderId: null,
          hailTraceOrderId: null,
        },
      ],
    },
  ],
};

export const integrationOrder: S.IntegrationOrder = {
  id: 44,
  name: "Welcome series",
  createdDate: "2026-01-01T00:00:00Z",
  updatedDate: "2026-01-01T00:00:00Z",
  postageType: "Standard",
  integrationOrderStatus: "Active",
  templateId: 3,
};

export const statistic: S.RecipientStatistic = {
  orderId: 12,
  statisticName: 1,
  statisticValue: "1",
  orderRecipientId: 101,
};

export const conversion: S.ConversionRecord = {
  firstName: "Grace",
  lastName: "Hopper",
  primaryEmail: "grace@example.com",
  revenue: "19.99",
  type: "Conversion",
  eventDate: "2026-01-10T12:00:00Z",
};

export const conversionStatus: S.ConversionStatus = {
  id: 55,
  fileName: "api-upload",
  dataSourceType: "CsvImport",
  status: "Processing",
  uploadDate: "2026-01-10T12:00:00Z",
};

export const addressBookEntry: S.AddressBookEntry = {
  firstName: "Grace",
  lastName: "Hopper",
  toOrganization: "",
  address1: "1 Main St",
  address2: "",
  city: "Springfield",
  state: "IL",
  zip: "62701",
  phoneNumber: null,
};

export const deliveryStatus: S.RecipientDeliveryStatus = {
  orderId: 12,
  recipientId: 101,
  firstName: "Grace",
  lastName: "Hopper",
  address1: "1 Main St",
  deliveryStatus: "Waiting on USPS Info",
  updatedDate: null,
};

/** The smallest PDF that is a PDF for our purposes. */
export const PDF = Buffer.from("%PDF-1.7\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n");
