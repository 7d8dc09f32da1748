import pulumi
import pulumi_directmail as directmail

pulumi.export("campaigns", directmail.CampaignFolder("campaigns", dir="campaigns").outputs)
