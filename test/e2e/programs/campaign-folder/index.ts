import { CampaignFolder } from "pulumi-directmail";

// The outputs are not exported: nothing waits for the folder to be loaded.
new CampaignFolder("campaigns", { dir: "camps" });
