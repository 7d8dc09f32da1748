/**
 * The project's Pulumi program. For now it records which directmail service the stack targets;
 * the campaign files of a folder are deployed from here once the campaign resources exist.
 */
import * as pulumi from "@pulumi/pulumi";
import { ProviderInfo } from "pulumi-directmail";

const stack = pulumi.getStack();
const target = new ProviderInfo("target", { label: stack });

export const baseUrl = target.baseUrl;
export const baseUrlSource = target.baseUrlSource;
export const apiKeyConfigured = target.apiKeyConfigured;
export const providerVersion = target.providerVersion;
