"""One resource of every kind the package has, and a campaign folder, from a Python program."""
import re

import pulumi
import pulumi_directmail as directmail

config = pulumi.Config()


def snake(value):
    """A JSON configuration object with its camelCase keys as the SDK's snake_case arguments."""
    if isinstance(value, list):
        return [snake(item) for item in value]
    if isinstance(value, dict):
        return {re.sub(r"(?<!^)([A-Z])", r"_\1", key).lower(): snake(item) for key, item in value.items()}
    return value


info = directmail.ProviderInfo("target", label="python-every-kind")
order = directmail.Order("order", template_id=config.require_int("templateId"))
recipients = directmail.OrderRecipients("recipients", order_id=order.order_id, file="recipients.csv")
checkout = directmail.Checkout(
    "checkout",
    order_id=order.order_id,
    postage_type="Standard",
    production_speed="Normal",
    expected_recipient_count=recipients.order_recipient_count,
    opts=pulumi.ResourceOptions(depends_on=[recipients]),
)
entry = directmail.AddressBookEntry(
    "entry",
    first_name=config.get("entryName") or "Ada",
    last_name="Lovelace",
    address1="1 Main St",
    city="Springfield",
    state="IL",
    zip="62701",
)
directmail.Conversions("sales", **snake(config.require_object("conversions")))
automation = config.require_object("automation")
directmail.AutomationRecipients(
    "welcome",
    integration_order_id=automation["integrationOrderId"],
    key_field=automation["keyField"],
    recipients=automation["recipients"],
)
directmail.ProximitySearch("around-store", **snake(config.require_object("search")))
campaigns = directmail.CampaignFolder("campaigns", dir="campaigns")

pulumi.export("orderId", order.order_id)
pulumi.export("orderStatus", checkout.order_status)
pulumi.export("entryId", entry.id)
pulumi.export("campaigns", campaigns.outputs)
