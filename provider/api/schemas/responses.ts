/**
 * The response envelope of each operation, one OpenAPI component per payload type. A server builds
 * its responses with these (`MeResponse.parse({ profile, payload, ... })`), the client parses them.
 */
import { AddressBookResult } from "./address-book";
import { OrderAnalytics } from "./analytics";
import { CheckoutPreview, CheckoutResult } from "./checkout";
import { ConversionDeleteResult, ConversionEcho, ConversionStatus } from "./conversions";
import { ErrorEnvelope, envelope } from "./envelope";
import { IntegrationOrder, IntegrationOrderList, IntegrationRecipientResult } from "./integration";
import { CreateOrderResult, DeleteOrderResult, OrderList } from "./order";
import { Profile } from "./profile";
import { AppendResult, DeleteRecipientsResult, RecipientDeliveryStatus, RecipientList } from "./recipient";
import { RecipientStatistic } from "./statistics";
import { FontList, TemplateList } from "./templates";
import { OrderTransactionReport } from "./transactions";

export const MeResponse = envelope(Profile, "MeResponse");
export const CreateOrderResponse = envelope(CreateOrderResult, "CreateOrderResponse");
export const OrderListResponse = envelope(OrderList, "OrderListResponse");
export const DeleteOrderResponse = envelope(DeleteOrderResult, "DeleteOrderResponse");
export const AppendRecipientsResponse = envelope(AppendResult, "AppendRecipientsResponse");
export const RecipientListResponse = envelope(RecipientList, "RecipientListResponse");
export const DeleteRecipientsResponse = envelope(DeleteRecipientsResult, "DeleteRecipientsResponse");
export const CheckoutPreviewResponse = envelope(CheckoutPreview, "CheckoutPreviewResponse");
export const CheckoutResponse = envelope(
  CheckoutResult,
  "CheckoutResponse",
  "Checkout accepted (not yet charged); `warnings` says payment is being processed.",
);
export const OrderAnalyticsResponse = envelope(OrderAnalytics, "OrderAnalyticsResponse");
export const OrderTransactionResponse = envelope(OrderTransactionReport, "OrderTransactionResponse");
export const IntegrationOrderListResponse = envelope(IntegrationOrderList, "IntegrationOrderListResponse");
export const IntegrationOrderResponse = envelope(IntegrationOrder, "IntegrationOrderResponse");
export const RecipientStatisticResponse = envelope(RecipientStatistic, "RecipientStatisticResponse");
export const ConversionBatchResponse = envelope(
  ConversionEcho,
  "ConversionBatchResponse",
  "Echo of the submitted records; per-record validation is in `errors` and `warnings`.",
);
export const ConversionDeleteResponse = envelope(ConversionDeleteResult, "ConversionDeleteResponse");
export const ConversionStatusResponse = envelope(ConversionStatus, "ConversionStatusResponse");
export const AddressBookResponse = envelope(
  AddressBookResult,
  "AddressBookResponse",
  "Id of the new entry; this response has no `errorCode` or `errorDetails`.",
);
export const TemplateListResponse = envelope(TemplateList, "TemplateListResponse");
export const FontListResponse = envelope(FontList, "FontListResponse");
export const RecipientDeliveryStatusResponse = envelope(
  RecipientDeliveryStatus,
  "RecipientDeliveryStatusResponse",
);

/** The 422 of an integration recipient add: the error envelope with the rejection as payload. */
export const IntegrationRecipientRejection = ErrorEnvelope.extend({
  payload: IntegrationRecipientResult,
}).meta({
  id: "IntegrationRecipientRejection",
  description:
    "422: the recipient was rejected; `payload.reasonCode` says why, `errors` carries the messages.",
});

/** The envelope of an error status: the 422 of an integration recipient add carries its rejection. */
export const errorEnvelopeFor = (status: number) =>
  status === 422 ? IntegrationRecipientRejection : ErrorEnvelope;
