"""Prints, as JSON, what the installed pulumi_directmail offers: read by python-wheel.test.ts."""
import importlib.metadata
import importlib.resources
import inspect
import json
import typing

import pulumi
import pulumi_directmail as directmail


def kind(cls):
    if issubclass(cls, pulumi.ComponentResource):
        return "component"
    if issubclass(cls, pulumi.ProviderResource):
        return "provider"
    if issubclass(cls, pulumi.CustomResource):
        return "custom"
    return "other"


names = ["AddressBookEntry", "AutomationRecipients", "Campaign", "CampaignFolder", "Checkout",
         "Conversions", "Order", "OrderRecipients", "Provider", "ProviderInfo", "ProximitySearch"]
order_params = inspect.signature(directmail.OrderArgs.__init__).parameters
print(json.dumps({
    "version": importlib.metadata.version("pulumi_directmail"),
    "pyTyped": importlib.resources.files("pulumi_directmail").joinpath("py.typed").is_file(),
    "resources": {name: kind(getattr(directmail, name)) for name in names},
    "folderArgs": list(inspect.signature(directmail.CampaignFolderArgs.__init__).parameters)[1:],
    # pulumi.Input[int]: an int, an awaitable int or an Output of one.
    "orderTemplateId": typing.get_args(order_params["template_id"].annotation)[0].__name__,
    "postageTypes": [member.value for member in directmail.PostageType],
    "delimiters": {member.name: member.value for member in directmail.OrderRecipientsDelimiter},
}))
