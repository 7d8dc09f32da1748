/**
 * The naming contract: the names and types every deployed stack holds, written out here as the
 * stacks store them, and the way back from a resource to its campaign.
 */
import { describe, expect, it } from "vitest";
import {
  COMPONENT_TYPE,
  campaignOfChild,
  childName,
  dynamicType,
  isCampaignGroup,
  KIND,
  kindOfType,
  pluginType,
  RESOURCE_KINDS,
} from "../../../provider/campaign/names";

describe("the naming contract", () => {
  it("names a campaign's children as every stack stores them", () => {
    expect(childName("spring", "order")).toBe("spring");
    expect(childName("spring", "recipients")).toBe("spring-recipients");
    expect(childName("spring", "checkout")).toBe("spring-checkout");
    expect(childName("spring", "conversions")).toBe("spring-conversions");
    expect(childName("spring", "address", "0a1b2c3d4e")).toBe("spring-address-0a1b2c3d4e");
    expect(childName("welcome", "search", "around-main-st")).toBe("welcome-search-around-main-st");
  });

  it("types the components and the resources as every stack stores them", () => {
    expect(COMPONENT_TYPE).toEqual({
      Campaign: "directmail:index:Campaign",
      CampaignFolder: "directmail:index:CampaignFolder",
      Automation: "directmail:index:Automation",
    });
    expect(RESOURCE_KINDS.map(dynamicType)).toEqual([
      "pulumi-nodejs:dynamic/directmail:ProviderInfo",
      "pulumi-nodejs:dynamic/directmail:Order",
      "pulumi-nodejs:dynamic/directmail:OrderRecipients",
      "pulumi-nodejs:dynamic/directmail:Checkout",
      "pulumi-nodejs:dynamic/directmail:AddressBookEntry",
      "pulumi-nodejs:dynamic/directmail:Conversions",
      "pulumi-nodejs:dynamic/directmail:AutomationRecipients",
      "pulumi-nodejs:dynamic/directmail:ProximitySearch",
    ]);
  });

  it("reads a kind back from a type; a type of another package stays whole", () => {
    for (const kind of RESOURCE_KINDS) expect(kindOfType(dynamicType(kind))).toBe(kind);
    // The plugin's types (a Pulumi YAML program's resources) read back to the same kinds.
    expect(RESOURCE_KINDS.map(pluginType)).toContain("directmail:index:OrderRecipients");
    for (const kind of RESOURCE_KINDS) expect(kindOfType(pluginType(kind))).toBe(kind);
    expect(kindOfType(COMPONENT_TYPE.Campaign)).toBe("Campaign");
    expect(kindOfType("pulumi:pulumi:Stack")).toBe("pulumi:pulumi:Stack");
    expect(isCampaignGroup(COMPONENT_TYPE.Campaign)).toBe(true);
    expect(isCampaignGroup(COMPONENT_TYPE.Automation)).toBe(true);
    expect(isCampaignGroup(COMPONENT_TYPE.CampaignFolder)).toBe(false);
  });

  it("finds a child's campaign from its kind and name, whatever the campaign's own name ends with", () => {
    expect(campaignOfChild(KIND.Order, "spring-checkout")).toBe("spring-checkout");
    expect(campaignOfChild(KIND.OrderRecipients, "spring-recipients")).toBe("spring");
    expect(campaignOfChild(KIND.Checkout, "spring-recipients-checkout")).toBe("spring-recipients");
    expect(campaignOfChild(KIND.Conversions, "spring-conversions")).toBe("spring");
    expect(campaignOfChild(KIND.AddressBookEntry, "spring-address-0a1b2c3d4e")).toBe("spring");
    expect(campaignOfChild(KIND.AutomationRecipients, "welcome-recipients")).toBe("welcome");
    expect(campaignOfChild(KIND.ProximitySearch, "welcome-search-around-main-st")).toBe("welcome");
    expect(campaignOfChild(KIND.Checkout, "spring")).toBeUndefined();
    expect(campaignOfChild(KIND.ProviderInfo, "spring")).toBeUndefined();
  });
});
