// Every campaign file under campaigns/ becomes a Campaign; each campaign's outputs are a stack
// output named after it (`pulumi stack output welcome-postcard`).
import { CampaignFolder } from "pulumi-directmail";

export = new CampaignFolder("campaigns", { dir: "campaigns" }).outputs;
