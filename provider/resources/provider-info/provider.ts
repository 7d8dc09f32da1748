/** The provider hooks of `ProviderInfo` (resource.ts): outputs computed from the provider's settings. */
import { packageVersion } from "../../version";
import { checkInputs } from "../check";
import type { ProviderContext, ResourceImplementation } from "../context";
import { ProviderInfoInputs } from "./inputs";
import type { ProviderInfoOutputs } from "./outputs";

export function providerInfoImplementation(
  ctx: ProviderContext,
): ResourceImplementation<ProviderInfoInputs, ProviderInfoOutputs> {
  const outputs = (inputs: ProviderInfoInputs): ProviderInfoOutputs => {
    const settings = ctx.settings();
    return {
      label: inputs.label,
      baseUrl: settings.baseUrl,
      baseUrlSource: settings.baseUrlSource,
      apiKeyConfigured: settings.apiKey !== undefined,
      providerVersion: packageVersion(),
    };
  };
  return {
    async check(_olds, news) {
      return checkInputs(ProviderInfoInputs, news);
    },
    async diff(_id, olds, news) {
      const settings = ctx.settings();
      const changes =
        olds.label !== news.label ||
        olds.baseUrl !== settings.baseUrl ||
        olds.apiKeyConfigured !== (settings.apiKey !== undefined);
      return { changes };
    },
    async create(inputs) {
      return { id: `provider-info-${inputs.label}`, outs: outputs(inputs) };
    },
    async read(id, props) {
      return { id, props: { ...props, ...outputs(props) } };
    },
    async update(_id, _olds, news) {
      return { outs: outputs(news) };
    },
  };
}
