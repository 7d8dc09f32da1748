/**
 * review.md as a pull-request comment: its layout, and its length, which never exceeds GitHub's
 * 65,536 characters however many campaigns and changes there are.
 */
import { describe, expect, it } from "vitest";
import { REPORT_LIMIT, REPORT_MARKER, renderMarkdown } from "../../../cli/review/markdown";
import { type CampaignReview, dropReportOf, exitCodeOf, type Review } from "../../../cli/review/model";
import type { RecipientEntry } from "../../../cli/review/recipients";

function keys(prefix: string, count: number, from = 2): RecipientEntry[] {
  return Array.from({ length: count }, (_, i) => ({
    key: `${prefix}-${String(i).padStart(5, "0")}`,
    row: from + i,
  }));
}

/** A campaign that pays, with many recipient changes and long notes. */
function busyCampaign(i: number): CampaignReview {
  const name = `campaign-${String(i).padStart(3, "0")}`;
  return {
    name,
    file: `campaigns/${name}.yaml`,
    orderId: 10_000 + i,
    orderStatus: "Draft",
    actions: ["update", "pay"],
    steps: [
      { resource: name, kind: "Order", op: "same" },
      { resource: `${name}-recipients`, kind: "OrderRecipients", op: "update" },
      { resource: `${name}-checkout`, kind: "Checkout", op: "create" },
    ],
    recipients: {
      by: "key",
      keyColumn: "customerId",
      base: { shownAs: `campaigns/${name}.csv`, count: 5000 },
      head: { shownAs: `campaigns/${name}.csv`, count: 5100 },
      added: 400,
      removed: 300,
      changed: 200,
      addedList: keys("A", 400),
      removedList: keys("R", 300),
      changedList: keys("C", 200).map((e) => ({ ...e, fields: ["address1", "zipCode"] })),
      notes: [],
    },
    drops: { accepted: 4990, dropped: 10, reasons: [{ reason: "UNDELIVERABLE", count: 10 }] },
    price: {
      kind: "quote",
      quote: {
        orderId: 10_000 + i,
        postageType: "Standard",
        productionSpeed: "Normal",
        autoBill: true,
        maxTotal: 20_000,
        total: 12_475,
        currency: "USD",
        recipients: 4990,
        coveredByBalance: 0,
        toPaymentMethod: 12_475,
        aboveMaxTotal: false,
        estimatedDelivery: { from: "2027-01-10T00:00:00Z", to: "2027-01-14T00:00:00Z" },
        lines: [{ name: "Handwritten Postcard", quantity: 4990, rate: 2.5, total: 12_475 }],
      },
    },
    flags: [{ kind: "checkout", detail: `pays 12475.00 USD for 4990 pieces (order ${10_000 + i})` }],
    problems: [],
    notes: ["a note that is long enough to matter ".repeat(5)],
    messages: [
      `[directmail] Recipients of order ${10_000 + i}: planned: 400 added, 300 removed, 200 changed`,
    ],
    proof: { file: `proofs/${name}.pdf`, bytes: 2040 },
  };
}

function reviewOf(campaigns: CampaignReview[], extra: Partial<Review> = {}): Review {
  const partial = {
    version: 1 as const,
    project: "campaigns",
    stack: "prod",
    base: { ref: "origin/main", commit: "0123456789abcdef0123456789abcdef01234567" },
    service: {
      baseUrl: "https://mail.example",
      settingsFrom: 'address from directmail:baseUrl of stack "prod"',
    },
    campaigns,
    validation: [],
    problems: [],
    proofsDir: "review/proofs",
    showPersonalData: false,
    offline: null,
    ...extra,
  };
  return { ...partial, exitCode: exitCodeOf(partial) };
}

/** The rows of the summary table, without its header and separator. */
function summaryRows(markdown: string): string[] {
  return markdown.split("\n").filter((line) => line.startsWith("| **"));
}

describe("review.md", () => {
  it("opens with the marker, the verdict, the summary table and the flags, then the details", () => {
    const markdown = renderMarkdown(reviewOf([busyCampaign(1)]));
    const lines = markdown.split("\n");
    expect(lines.slice(0, 6)).toEqual([
      REPORT_MARKER,
      "## directmail review: stack `prod`, `origin/main` (0123456) → working tree",
      "",
      "**⚠ Needs approval: this change spends money or cannot be undone** (exit code 3).",
      "",
      'Service: https://mail.example (address from directmail:baseUrl of stack "prod").',
    ]);
    expect(summaryRows(markdown)).toEqual([
      "| **campaign-001** | update, pay | +400 −300 ~200 | 4990 / 10 (UNDELIVERABLE 10) | 12,475.00 USD | ⚠ checkout |",
    ]);
    expect(markdown).toContain(
      "- **⚠ checkout** (1): campaign-001. Spends money: merged, `pulumi up` pays for the order, once (and refuses, charging nothing, above maxTotal).",
    );
    // Fits whole: every key is listed up to 50 per kind, and nothing is said to be left out.
    expect(markdown).toContain("`A-00049` (row 51)");
    expect(markdown).toContain(", and 350 more");
    expect(markdown).not.toContain("Left out");
    expect(markdown.indexOf("| **campaign-001**")).toBeLessThan(markdown.indexOf("### ⚠ Needs approval"));
    expect(markdown.indexOf("### ⚠ Needs approval")).toBeLessThan(markdown.indexOf("<details>"));
  });

  it("with 300 campaigns stays within 65,536 characters: the summary and the flags whole, details shortened first, and says so", () => {
    const campaigns = Array.from({ length: 300 }, (_, i) => busyCampaign(i));
    const review = reviewOf(campaigns, {
      validation: Array.from({ length: 50 }, (_, i) => ({
        file: "campaigns/broken.yaml",
        line: i + 1,
        column: 3,
        message: "spec.order.templateId: must be a whole number",
      })),
    });
    const markdown = renderMarkdown(review);
    expect(markdown.length).toBeLessThanOrEqual(REPORT_LIMIT);
    // The summary: one row per campaign, every one of them.
    expect(summaryRows(markdown)).toHaveLength(300);
    for (const c of campaigns) expect(markdown).toContain(`| **${c.name}** | update, pay |`);
    // The flags: every campaign named.
    const flags = markdown.split("\n").find((line) => line.startsWith("- **⚠ checkout** (300): ")) ?? "";
    expect(flags.split(": ")[1]?.split(". ")[0]?.split(", ")).toEqual(campaigns.map((c) => c.name));
    // Validation problems come before the details are all given.
    expect(markdown).toContain("`campaigns/broken.yaml:50:3`: spec.order.templateId: must be a whole number");
    // What was left out is said.
    expect(markdown).toMatch(
      /Left out to stay within 65,536 characters: the details of \d+ campaigns are shortened; the details of \d+ campaigns are left out\. review\.json has all of it\./,
    );
    expect(markdown).toContain("Proofs of the drafts (300 PDFs): `review/proofs/`.");
  });

  it("shortens details before it leaves any out, and keeps the first ones in full while they fit", () => {
    const campaigns = Array.from({ length: 20 }, (_, i) => busyCampaign(i));
    const full = renderMarkdown(reviewOf(campaigns), 1_000_000);
    expect(full).not.toContain("Left out");
    const limit = Math.floor(full.length * 0.6);
    const markdown = renderMarkdown(reviewOf(campaigns), limit);
    expect(markdown.length).toBeLessThanOrEqual(limit);
    expect(markdown.match(/<details>/g)).toHaveLength(20);
    expect(markdown).toMatch(/the details of \d+ campaigns are shortened\. review\.json/);
    expect(markdown).not.toContain("are left out");
    // The first campaign kept its full list, a later one its first five keys.
    expect(markdown).toContain("`A-00049` (row 51)");
    const last = markdown.slice(markdown.lastIndexOf("<details>"));
    expect(last).toContain("`A-00004` (row 6), and 395 more");
  });

  it("keeps the problems before the details, and cuts even the summary of thousands of campaigns to the limit", () => {
    const campaigns = Array.from({ length: 3000 }, (_, i) => ({
      ...busyCampaign(i),
      name: `campaign-with-a-long-name-${String(i).padStart(4, "0")}`,
      problems: ["the checkout would charge 12475.00 USD, more than maxTotal 10.00 USD"],
    }));
    const markdown = renderMarkdown(reviewOf(campaigns));
    expect(markdown.length).toBeLessThanOrEqual(REPORT_LIMIT);
    expect(markdown).toContain("**❌ Problems: fix them before merging** (exit code 1).");
    expect(markdown).toMatch(
      /Left out to stay within 65,536 characters: \d+ rows of the summary; 3000 problems;/,
    );
  });

  it("shows recipients by key and row only, and names and addresses only when asked", () => {
    const campaign = busyCampaign(1);
    if (!campaign.recipients) throw new Error("fixture");
    campaign.recipients.addedList = [
      { key: "C-9", row: 4, personal: "Ada Lovelace, 12 Analytical St, London KY 40741" },
    ];
    campaign.recipients.added = 1;
    const hidden = renderMarkdown(reviewOf([campaign]));
    expect(hidden).toContain("added 1: `C-9` (row 4)\n");
    expect(hidden).not.toContain("Lovelace");
    const shown = renderMarkdown(reviewOf([campaign], { showPersonalData: true }));
    expect(shown).toContain("added 1: `C-9` (row 4) Ada Lovelace, 12 Analytical St, London KY 40741");
    expect(shown).toContain("This report shows recipients' names and addresses (--show-personal-data).");
  });

  it("keeps user text from changing the layout: HTML, table pipes and backticks", () => {
    const campaign = busyCampaign(1);
    if (!campaign.recipients) throw new Error("fixture");
    campaign.recipients.addedList = [{ key: "a`b|c<b>", row: 2 }];
    campaign.recipients.added = 1;
    campaign.messages = ["<script>x</script> | done"];
    const markdown = renderMarkdown(reviewOf([campaign]));
    expect(markdown).toContain("added 1: `` a`b c<b> `` (row 2)");
    expect(markdown).toContain("Preview: &lt;script&gt;x&lt;/script&gt; \\| done");
  });
});

describe("drop reasons in review.md", () => {
  it("sums the summary cell by reason code and lists each redacted reason in the details", () => {
    const campaign = busyCampaign(1);
    campaign.drops = dropReportOf({
      acceptedCount: 4997,
      droppedCount: 3,
      // As a state written before reasons were redacted holds them: the service's words.
      dropReasons: {
        "ADDRESS_NOT_VALID: address.zipCode: '5974O' is not a ZIP or ZIP+4 code": 1,
        "ADDRESS_NOT_VALID: address.zipCode: '1234' is not a ZIP or ZIP+4 code": 1,
        "ADDRESS_NOT_VALID: address.state: 'Ada' is not a US state or territory": 1,
      },
    });
    const markdown = renderMarkdown(reviewOf([campaign]));
    expect(summaryRows(markdown)[0]).toContain("| 4997 / 3 (ADDRESS\\_NOT\\_VALID 3) |");
    expect(markdown).toContain(
      "- On the draft now: 4997 accepted, 3 dropped (`ADDRESS_NOT_VALID: address.zipCode: not a ZIP or ZIP+4 code` 2, " +
        "`ADDRESS_NOT_VALID: address.state: not a US state or territory` 1)",
    );
    for (const value of ["5974O", "1234", "Ada"]) expect(markdown).not.toContain(`${value}'`);
  });
});
