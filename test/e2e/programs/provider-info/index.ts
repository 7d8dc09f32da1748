import * as pulumi from "@pulumi/pulumi";
import { ProviderInfo } from "pulumi-directmail";

const config = new pulumi.Config();
const info = new ProviderInfo("target", { label: config.get("label") ?? "e2e" });

export const baseUrl = info.baseUrl;
export const baseUrlSource = info.baseUrlSource;
export const apiKeyConfigured = info.apiKeyConfigured;
export const providerVersion = info.providerVersion;
export const label = info.label;
