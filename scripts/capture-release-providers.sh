#!/usr/bin/env bash
# Captures the dynamic provider (`__provider`) that a release of this package stores in a stack's
# state for each of its resource kinds, into test/e2e/fixtures/release-providers/<commit>.json.
# test/e2e/state-compat.test.ts puts these texts into a stack made by the current code and runs
# refresh, up and destroy on it: a stack created by that release keeps working.
#
# The release is built from `git archive <commit>` in a temporary folder (npm ci, tsc), its own
# sandbox is started, and a program declaring one resource of each kind is deployed there with the
# real pulumi CLI and a file backend.
#
#   usage: bash scripts/toolchain.sh bash scripts/capture-release-providers.sh <commit>
set -euo pipefail

commit=$(git rev-parse --verify "${1:?usage: capture-release-providers.sh <commit>}^{commit}")
repo=$(pwd)
out="$repo/test/e2e/fixtures/release-providers/${commit:0:7}.json"
work=$(mktemp -d "${TMPDIR:-/tmp}/directmail-release-XXXXXX")
sandbox_pid=
cleanup() {
  if [ -n "$sandbox_pid" ]; then kill "$sandbox_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

echo "building $commit in $work" >&2
git archive "$commit" | tar -x -C "$work/"
(cd "$work" && npm ci --no-audit --no-fund --loglevel=error && npx tsc -p tsconfig.json)

# The release's own sandbox, seeded with the demo account (template 10001, a balance to pay with).
mkfifo "$work/sandbox.out"
node "$work/bin/directmail.js" sandbox --port 0 --data :memory: --seed demo --quiet >"$work/sandbox.out" &
sandbox_pid=$!
read -r started <"$work/sandbox.out"
url=$(node -e 'console.log(JSON.parse(process.argv[1]).url)' "$started")
api_key=$(node -e 'console.log(JSON.parse(process.argv[1]).apiKey)' "$started")

# Inside the release's folder, so that `pulumi-directmail` is the release (package self-reference).
program="$work/capture"
mkdir -p "$program"
cat >"$program/Pulumi.yaml" <<'EOF'
name: directmail-release-capture
runtime: nodejs
main: index.ts
EOF
cp "$work/program/tsconfig.json" "$program/tsconfig.json"
cat >"$program/index.ts" <<'EOF'
import { AddressBookEntry, Checkout, Order, OrderRecipients, ProviderInfo } from "pulumi-directmail";

const order = new Order("order", { templateId: 10001 });
const recipients = new OrderRecipients("recipients", {
  orderId: order.orderId,
  recipients: [
    { firstName: "Ada", lastName: "Lovelace", address1: "12 Analytical St", city: "Springfield", state: "IL", zipCode: "62701" },
  ],
});
new Checkout(
  "checkout",
  { orderId: order.orderId, postageType: "Standard", productionSpeed: "Normal", maxTotal: 50 },
  { dependsOn: [recipients] },
);
new AddressBookEntry("entry", { firstName: "Ada", lastName: "Lovelace", address1: "12 Analytical St", city: "Springfield", state: "IL", zip: "62701" });
new ProviderInfo("info", { label: "capture" });
EOF

mkdir -p "$work/state" "$work/home"
export PULUMI_BACKEND_URL="file://$work/state" PULUMI_HOME="$work/home" PULUMI_CONFIG_PASSPHRASE=capture
export PULUMI_SKIP_UPDATE_CHECK=true PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true
(
  cd "$program"
  pulumi stack init capture --non-interactive >&2
  pulumi config set directmail:baseUrl "$url" >&2
  pulumi config set --secret directmail:apiKey "$api_key" >&2
  pulumi up --yes --non-interactive --skip-preview >&2
  pulumi stack export --file "$work/state.json" >&2
)

mkdir -p "$(dirname "$out")"
node - "$work/state.json" "$commit" "$out" <<'EOF'
const fs = require("node:fs");
const [state, commit, out] = process.argv.slice(2);
const providers = {};
for (const r of JSON.parse(fs.readFileSync(state, "utf8")).deployment.resources) {
  if (r.inputs?.__provider !== undefined) providers[r.type] = r.inputs.__provider;
}
fs.writeFileSync(out, `${JSON.stringify({ commit, providers }, null, 2)}\n`);
console.log(`wrote ${out}: ${Object.keys(providers).sort().join(", ")}`);
EOF
