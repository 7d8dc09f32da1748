import * as pulumi from "@pulumi/pulumi";
import {
  AutomationRecipients,
  type AutomationRecipientsArgs,
  Conversions,
  type ConversionsArgs,
  ProximitySearch,
  type ProximitySearchArgs,
} from "pulumi-directmail";

// Each resource is declared when its config is set, as data (a JSON config value).
const config = new pulumi.Config();
const conversions = config.getObject<ConversionsArgs>("conversions");
const automation = config.getObject<AutomationRecipientsArgs>("automation");
const search = config.getObject<ProximitySearchArgs>("search");

const outputs: Record<string, pulumi.Output<unknown>> = {};
if (conversions) outputs.conversionUploads = new Conversions("sales", conversions).uploads;
if (automation) outputs.mailed = new AutomationRecipients("welcome", automation).mailedCount;
if (search) outputs.searchStatus = new ProximitySearch("around-store", search).searchStatus;
export = outputs;
