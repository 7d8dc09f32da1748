/**
 * review.md as a pull-request comment: its layout, and its length, which never exceeds GitHub's
 * 65,536 characters however many campaigns and changes there are.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { REPORT_LIMIT, REPORT_MARKER, renderMarkdown } from "../../../../cli/review/markdown";
import { WORD_JOINER as J } from "../../../../cli/review/markdown-text";
import {
  budgetOf,
  type CampaignReview,
  exitCodeOf,
  type Quote,
  type Review,
} from "../../../../cli/review/model";
import type { RecipientEntry } from "../../../../cli/review/recipients";
import { dropReportOf } from "../../../../cli/stack/drop-report";
import { HOSTILE_FONT, withoutCodeSpans, withoutReferences } from "../../../support/markdown-safety";

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
    predicted: undefined,
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
    const predicted = busyCampaign(1);
    predicted.predicted = {
      declared: 5100,
      dropped: 12,
      rows: [7, 12],
      reasons: [
        { reason: "unchanged since dropped", count: 10 },
        { reason: "ADDRESS_NOT_VALID: address.address1: address1 has no primary (house) number", count: 2 },
      ],
    };
    const markdown = renderMarkdown(reviewOf([predicted]));
    const lines = markdown.split("\n");
    expect(lines.slice(0, 6)).toEqual([
      REPORT_MARKER,
      "## directmail review: stack `prod`, `origin/main` (0123456) → working tree",
      "",
      "**⚠ Needs approval: this change spends money or cannot be undone** (exit code 3).",
      "",
      'Service: `https://mail.example` (address from directmail:baseUrl of stack "prod").',
    ]);
    expect(summaryRows(markdown)).toEqual([
      "| **campaign-001** | update, pay | +400 −300 ~200 | 5088 / 12 (unchanged since dropped 10, ADDRESS_NOT_VALID 2) after the change; now 4990 / 10 (UNDELIVERABLE 10) | 12,475.00 USD | ⚠ checkout |",
    ]);
    expect(markdown).toContain("| Accepted / dropped (after the change; now) |");
    expect(markdown).toContain(
      "- After this change (predicted by the service's address rules): 5088 accepted, 12 dropped (rows 7, 12 and 10 more: " +
        "`unchanged since dropped` 10, `ADDRESS_NOT_VALID: address.address1: address1 has no primary (house) number` 2)",
    );
    expect(markdown).toContain(
      "- On the draft now (current): 4990 accepted, 10 dropped (`UNDELIVERABLE` 10)",
    );
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

  it("shows a hostile handwriting font in ❌ Problems as plain text: no link, no bold, no mention", () => {
    const campaign = {
      ...busyCampaign(1),
      name: "spring",
      problems: [`preview: handwritingFont: "${HOSTILE_FONT}" is not a handwriting style of the service`],
    };
    const markdown = renderMarkdown(reviewOf([campaign]));
    const lines = markdown.split("\n");
    expect(lines).toContain(
      `- **spring**: preview: handwritingFont: "Neat&#93;(https:${J}//evil.example) ` +
        `&#42;&#42;&#91;Approve&#93;(https:${J}//evil.example)&#42;&#42; cc @${J}team" is not a handwriting style of the service`,
    );
    expect(lines).toContain(
      `- ❌ preview: handwritingFont: "Neat&#93;(https:${J}//evil.example) ` +
        `&#42;&#42;&#91;Approve&#93;(https:${J}//evil.example)&#42;&#42; cc @${J}team" is not a handwriting style of the service`,
    );
    expect(markdown).not.toContain("](https://");
    expect(markdown).not.toContain("@team");
  });

  it("shows every text of the files, the plan, the state and the service as written, in every part of the report", () => {
    const campaign: CampaignReview = {
      ...busyCampaign(1),
      name: "a|b <i>",
      file: "campaigns/x`y.yaml",
      orderStatus: "Draft <b>",
      steps: [{ resource: "r`1", kind: "Order_x_", op: "update\n# heading" }],
      recipients: {
        by: "key",
        keyColumn: "id|`x`",
        base: { shownAs: "a\nb.csv", count: 1 },
        head: { shownAs: "c.csv", count: 1 },
        added: 1,
        removed: 0,
        changed: 1,
        addedList: [{ key: "a`b|c<b>", row: 2, personal: "Ada ![x](y) Lovelace" }],
        removedList: [],
        changedList: [{ key: "", row: 3, fields: ["zip*", "_city"] }],
        notes: ["note with `code` and #5"],
      },
      drops: {
        accepted: 1,
        dropped: 1,
        reasons: [{ reason: "BAD_ZIP: see www.evil.example | x", count: 1 }],
      },
      flags: [{ kind: "checkout", detail: "pays for @someone" }],
      problems: ["first line\n\n[second](https://evil.example)"],
      notes: ["<!-- a comment -->"],
      messages: ["~~struck~~ $x$"],
      price: {
        kind: "quote",
        quote: {
          ...(busyCampaign(1).price as { kind: "quote"; quote: Quote }).quote,
          postageType: "Standard*",
          productionSpeed: "Normal_",
          holdUntilDate: "2027-01-01 <b>",
          estimatedDelivery: { from: "2027-0|<b>-10", to: "2027-01-14" },
          lines: [{ name: "Card [x](y)", quantity: 1, rate: 2.5, total: 2.5 }],
        },
      },
    };
    const review = reviewOf([campaign], {
      stack: "prod`x",
      service: { baseUrl: "https://mail.example/`x`", settingsFrom: "address from @env" },
      validation: [{ file: "a|b.yaml", line: 1, column: 2, message: "bad **value**" }],
      problems: ["the service at https://evil.example said <b>no</b>"],
      showPersonalData: true,
    });
    const lines = renderMarkdown(review).split("\n");
    for (const line of [
      "## directmail review: stack ``prod`x``, `origin/main` (0123456) → working tree",
      "Service: `` https://mail.example/`x` `` (address from @\u2060env).",
      "| **a&#124;b &lt;i&gt;** | update, pay | +1 −0 ~1 | now 1 / 1 (BAD_ZIP 1) | 12,475.00 USD | ⚠ checkout, ❌ 1 problem |",
      "- **⚠ checkout** (1): a&#124;b &lt;i&gt;. Spends money: merged, `pulumi up` pays for the order, once (and refuses, charging nothing, above maxTotal).",
      `- the service at https:${J}//evil.example said &lt;b&gt;no&lt;/b&gt;`,
      `- **a&#124;b &lt;i&gt;**: first line<br>&#91;second&#93;(https:${J}//evil.example)`,
      "<details><summary><b>a&#124;b &lt;i&gt;</b>: update, pay · order 10001 (Draft &lt;b&gt;)</summary>",
      "- File: ``campaigns/x`y.yaml``",
      "- Plan: Order_x&#95; ``r`1`` update #\u2060 heading",
      "- Recipients by `` id¦`x` ``: 1 at the base (`a b.csv`) → 1 at the head (`c.csv`)",
      "  - added 1: ``a`b¦c<b>`` (row 2) Ada !&#91;x&#93;(y) Lovelace",
      "  - changed 1: ` ` (row 3: zip&#42;, &#95;city)",
      "  - Note: note with `code` and #\u20605",
      "- On order 10001 (Draft &lt;b&gt;, checked out: its recipients no longer change): 1 accepted, 1 dropped (`BAD_ZIP: see www.evil.example ¦ x` 1)",
      "- Price: **12,475.00 USD** for 4990 pieces of order 10001 (the service's checkout preview), Standard&#42; postage, " +
        "Normal&#95; production, held until 2027-01-01 &lt;b&gt;; the account's balance covers 0.00 USD, 12,475.00 USD goes " +
        "to the payment method; delivery expected 2027-0&#124;&lt;b&gt; to 2027-01-14; maxTotal 20,000.00 USD",
      "  - Card &#91;x&#93;(y): 1 × 2.50 USD = 2.50 USD",
      "- ⚠ checkout: pays for @\u2060someone",
      `- ❌ first line<br>&#91;second&#93;(https:${J}//evil.example)`,
      "- Note: &lt;!-- a comment --&gt;",
      "- Preview: &#126;&#126;struck&#126;&#126; &#36;x&#36;",
      "- `a¦b.yaml:1:2`: bad &#42;&#42;value&#42;&#42;",
    ]) {
      expect(lines, lines.join("\n")).toContain(line);
    }
  });

  it("no text of a file or the service adds markup, a line, a cell, a mention or a link to the report", () => {
    const plainReport = renderMarkdown(reportWith("word"));
    // Outside code, every character of markup, every mention and every autolink is the report's own.
    const shape = (markdown: string) => {
      const outside = withoutReferences(withoutCodeSpans(markdown))
        .replace(OUR_TAGS, "")
        // `_` inside a word emphasizes nothing.
        .replace(/(?<=[A-Za-z0-9])_(?=[A-Za-z0-9])/g, "");
      return {
        lines: markdown.split("\n").length,
        cells: summaryRows(markdown).map((row) => row.split("|").length),
        markup: [..."<>[]*~$|\\&_"].map((char) => `${char} ${outside.split(char).length - 1}`),
        // A `#` of a heading is the report's; one of the text has a word joiner after it.
        mentions: outside.match(new RegExp(`[@#](?!${J})|gh-\\d|://|www\\.`, "gi"))?.length,
      };
    };
    const text = fc.string({
      unit: fc.constantFrom(
        ..."[]()!<>*_~$|\\`&#@:/.\n a1".split(""),
        "https://",
        "www.",
        "@team",
        "&#64;",
        "<br>",
      ),
      minLength: 1,
      maxLength: 30,
    });
    fc.assert(
      fc.property(text, (value) => {
        const markdown = renderMarkdown(reportWith(value));
        expect(shape(markdown), markdown).toEqual(shape(plainReport));
      }),
      { numRuns: 300 },
    );
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
    expect(summaryRows(markdown)[0]).toContain("| now 4997 / 3 (ADDRESS_NOT_VALID 3) |");
    expect(markdown).toContain(
      "- On the draft now (current): 4997 accepted, 3 dropped (`ADDRESS_NOT_VALID: address.zipCode: not a ZIP or ZIP+4 code` 2, " +
        "`ADDRESS_NOT_VALID: address.state: not a US state or territory` 1)",
    );
    for (const value of ["5974O", "1234", "Ada"]) expect(markdown).not.toContain(`${value}'`);
  });
});

describe("the drops of an order in review.md", () => {
  it("say the draft for a draft, and name the order's status once it is past draft", () => {
    const draft = busyCampaign(1);
    const completed = { ...busyCampaign(2), orderStatus: "Completed" };
    const paying = { ...busyCampaign(3), orderStatus: "Payment Needed" };
    const markdown = renderMarkdown(reviewOf([draft, completed, paying]));
    expect(markdown.split("\n").filter((line) => line.startsWith("- On "))).toEqual([
      "- On the draft now (current): 4990 accepted, 10 dropped (`UNDELIVERABLE` 10)",
      "- On order 10002 (Completed, checked out: its recipients no longer change): 4990 accepted, 10 dropped (`UNDELIVERABLE` 10)",
      "- On order 10003 (Payment Needed, checked out: its recipients no longer change): 4990 accepted, 10 dropped (`UNDELIVERABLE` 10)",
    ]);
  });
});

describe("review.md of an offline review", () => {
  it("says it is offline, prices nothing, and flags the code the change alters, as many paths as fit", () => {
    const campaign: CampaignReview = {
      ...busyCampaign(1),
      price: { kind: "offline" },
      drops: undefined,
      proof: undefined,
      flags: [{ kind: "checkout", detail: "pays for the order, at a price the offline review does not ask" }],
    };
    const paths = ["index.ts", "package.json", ...Array.from({ length: 3000 }, (_, i) => `scripts/s${i}.sh`)];
    const markdown = renderMarkdown(
      reviewOf([campaign], {
        stack: null,
        service: null,
        proofsDir: undefined,
        offline: { codeChanges: paths },
      }),
    );
    const lines = markdown.split("\n");
    expect(lines.slice(0, 6)).toEqual([
      REPORT_MARKER,
      "## directmail review: offline, `origin/main` (0123456) → working tree",
      "",
      "**⚠ Needs approval: this change spends money or cannot be undone** (exit code 3).",
      "",
      "Offline review: read from the campaign files alone, without the stack, the service or a secret; the plan, the prices, the drops and the proofs are known once the change is merged.",
    ]);
    expect(summaryRows(markdown)).toEqual([
      "| **campaign-001** | update, pay | +400 −300 ~200 | — | known after merge | ⚠ checkout |",
    ]);
    const flag = lines.find((line) => line.startsWith("- **⚠ code changed**")) ?? "";
    expect(flag).toMatch(
      /^- \*\*⚠ code changed\*\* \(3002 paths\): `index\.ts`, `package\.json`, `scripts\/s0\.sh`, .* and \d+ more \(review\.json lists them\)\. The change alters code, not only campaign files: it runs only after merge, with approval\. This review read its campaign files alone, offline, without the stack, the service or a secret\.$/,
    );
    expect(markdown.length).toBeLessThanOrEqual(65_536);
    expect(markdown).toContain(
      "- Price: not asked (an offline review): the deploy prices the checkout, within maxTotal",
    );
  });
});

/** Our own tags, which every report has as many of whatever the text in it. */
const OUR_TAGS = /<!-- directmail-review -->|<\/?details>|<\/?summary>|<\/?b>|<br>/g;

/** A review with `text` in every field that a campaign file, the plan, the state or the service fills. */
function reportWith(text: string): Review {
  const campaign: CampaignReview = {
    ...busyCampaign(1),
    name: text,
    file: text,
    orderStatus: text,
    steps: [{ resource: text, kind: text, op: text }],
    recipients: {
      by: "key",
      keyColumn: text,
      base: { shownAs: text, count: 1 },
      head: { shownAs: text, count: 1 },
      added: 1,
      removed: 1,
      changed: 1,
      addedList: [{ key: text, row: 2, personal: text }],
      removedList: [{ key: text, row: 2 }],
      changedList: [{ key: text, row: 3, fields: [text, text], personal: text, before: text }],
      notes: [text],
    },
    drops: { accepted: 1, dropped: 1, reasons: [{ reason: text, count: 1 }] },
    flags: [{ kind: "checkout", detail: text }],
    problems: [`x ${text}`],
    notes: [text],
    messages: [text],
    proof: { file: text, bytes: 1 },
  };
  return reviewOf([campaign], {
    stack: text,
    base: { ref: text, commit: "0123456789abcdef0123456789abcdef01234567" },
    service: { baseUrl: text, settingsFrom: text },
    validation: [{ file: text, line: 1, column: 1, message: text }],
    problems: [`y ${text}`],
    proofsDir: text,
    showPersonalData: true,
  });
}

describe("review.md's budget line", () => {
  const since = new Date("2026-11-01T00:00:00Z");
  /** A campaign that pays for its draft as it is: its quote is the price `pulumi up` holds. */
  const steady = (i: number): CampaignReview => ({ ...busyCampaign(i), recipients: undefined });
  const drafted = { ...busyCampaign(3), price: { kind: "after-draft" as const } };

  it("says spent this month, planned by this change (the checkouts it prices) and left, below the service line", () => {
    // busyCampaign(4) alters its recipients: its quote prices the list it replaces, so it is not counted.
    const campaigns = [steady(1), steady(2), drafted, busyCampaign(4)];
    const budget = budgetOf(campaigns, { charged: 50.5, unsettled: 0, since }, 25_000.5);
    expect(budget).toMatchObject({ spent: 50.5, planned: 24_950, left: 0, above: false, unpriced: 2 });
    const lines = renderMarkdown(reviewOf(campaigns, { budget })).split("\n");
    expect(lines[7]).toBe(
      "Budget (directmail:monthlyBudget): spent this month 50.50 USD (2026-11 (UTC)), planned by this change " +
        "24,950.00 USD, budget 25,000.50 USD, left 0.00 USD. Not counted: 2 checkouts priced only once applied " +
        "(a new draft, or recipients this change alters); `pulumi up` holds each against the budget just before " +
        "it is sent.",
    );
  });

  it("counts the checkouts sent and not yet settled as spent, and says how much of it has not settled", () => {
    const budget = budgetOf([steady(1)], { charged: 20, unsettled: 7.5, since }, 12_500);
    expect(budget).toMatchObject({ spent: 27.5, unsettled: 7.5, planned: 12_475, left: -2.5, above: true });
    expect(renderMarkdown(reviewOf([steady(1)], { budget }))).toContain(
      "Budget (directmail:monthlyBudget): spent this month 27.50 USD (2026-11 (UTC), 7.50 USD of it not yet " +
        "settled), planned by this change 12,475.00 USD, budget 12,500.00 USD, left -2.50 USD.\n",
    );
  });

  it("one cent above the budget is said above it", () => {
    const budget = budgetOf([steady(1)], { charged: 0.01, unsettled: 0, since }, 12_475);
    expect(budget).toMatchObject({ left: -0.01, above: true, unpriced: 0 });
    expect(renderMarkdown(reviewOf([steady(1)], { budget }))).toContain(
      "❌ above the budget: `pulumi up` refuses the checkout that would go above it. Budget " +
        "(directmail:monthlyBudget): spent this month 0.01 USD (2026-11 (UTC)), planned by this change 12,475.00 " +
        "USD, budget 12,475.00 USD, left -0.01 USD.\n",
    );
  });

  it("is absent without a budget", () => {
    expect(renderMarkdown(reviewOf([busyCampaign(1)]))).not.toContain("monthlyBudget");
  });
});
