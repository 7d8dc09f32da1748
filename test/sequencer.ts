/**
 * The order vitest starts the test files in. Three workers share the run; a long file that starts
 * last runs alone at the end. vitest sorts by the durations of the last run it remembers, which a
 * fresh clone (CI) does not have: it then starts the largest files first, and the slowest files
 * (end to end, the real pulumi CLI) are not the largest. So the slowest files, as measured, start
 * first, longest first; every other file follows in vitest's own order.
 */
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** The slowest files, longest first (a full run's durations: test-results/vitest.json). */
export const SLOWEST_FILES = [
  "test/e2e/gitops-attacks.test.ts",
  "test/e2e/review.test.ts",
  "test/bench/smoke.test.ts",
  "test/e2e/installed-yaml-project.test.ts",
  "test/e2e/resource-options-dynamic.test.ts",
  "test/e2e/monthly-budget.test.ts",
  "test/reliability/secrets.test.ts",
  "test/e2e/user-project.test.ts",
  "test/e2e/resource-options-plugin.test.ts",
  "test/e2e/settings.test.ts",
  "test/reliability/checkout-soak.test.ts",
  "test/e2e/python-program.test.ts",
  "test/e2e/money-safety.test.ts",
  "test/e2e/object-store.test.ts",
  "test/e2e/examples.test.ts",
  "test/e2e/service-text.test.ts",
  "test/e2e/money-cap.test.ts",
  "test/e2e/installed-package.test.ts",
  "test/e2e/state-compat.test.ts",
  "test/e2e/keyed-recipients.test.ts",
  "test/e2e/services.test.ts",
  "test/e2e/yaml-plugin.test.ts",
  "test/e2e/campaign.test.ts",
  "test/e2e/plugin-import.test.ts",
  "test/e2e/status.test.ts",
  "test/e2e/project-paths.test.ts",
  "test/reliability/sync-soak.test.ts",
  "test/e2e/retire.test.ts",
  "test/e2e/plan-price.test.ts",
  "test/integration/resources/checkout.test.ts",
  "test/e2e/interrupted-create.test.ts",
  "test/e2e/refresh.test.ts",
  "test/e2e/gitops-template.test.ts",
  "test/e2e/campaign-root.test.ts",
  "test/e2e/outside-files.test.ts",
  "test/reliability/fuzz.test.ts",
  "test/e2e/row-messages.test.ts",
  "test/e2e/automation-files.test.ts",
  "test/e2e/installed-python-project.test.ts",
  "test/e2e/yaml-campaign-component.test.ts",
  "test/e2e/personal-data.test.ts",
];

export class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) => {
      const relative = spec.moduleId.slice(spec.project.config.root.length + 1).replaceAll("\\", "/");
      const index = SLOWEST_FILES.indexOf(relative);
      return index === -1 ? SLOWEST_FILES.length : index;
    };
    const rest = await super.sort(files.filter((spec) => rank(spec) === SLOWEST_FILES.length));
    const slowest = files
      .filter((spec) => rank(spec) < SLOWEST_FILES.length)
      .sort((a, b) => rank(a) - rank(b));
    return [...slowest, ...rest];
  }
}
