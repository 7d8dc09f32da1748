import { CampaignFolder } from "pulumi-directmail";

export const campaigns = new CampaignFolder("campaigns", { dir: "campaigns" }).outputs;
