"""Every campaign file under campaigns/ becomes a Campaign; each campaign's outputs are in the stack
output `campaigns`, by its name (`pulumi stack output campaigns`)."""
import pulumi
import pulumi_directmail as directmail

campaigns = directmail.CampaignFolder("campaigns", dir="campaigns")

pulumi.export("campaigns", campaigns.outputs)
