import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startTestSandbox, type TestSandbox } from "../../support/sandbox";
import { configuredProvider, type Provider } from "./support";

let sb: TestSandbox;
let apiKey: string;
let entry: Provider;

beforeAll(async () => {
  sb = await startTestSandbox();
  ({ apiKey } = await sb.control.createAccount({}));
  entry = await configuredProvider("AddressBookEntry", sb, apiKey);
});
afterAll(async () => {
  await sb?.close();
});

const declared = {
  firstName: "Ada",
  lastName: "Lovelace",
  address1: "12 Main Street",
  city: "Springfield",
  state: "IL",
  zip: "62701",
};

describe("AddressBookEntry", () => {
  it("check names missing fields and fills the optional ones the service requires", async () => {
    const bad = await entry.check({}, { firstName: "Ada", city: "Springfield", state: "IL" });
    expect((bad.failures ?? []).map((f) => f.reason).sort()).toEqual([
      "address1 is required",
      "zip is required",
    ]);
    const ok = await entry.check({}, declared);
    expect(ok.inputs).toMatchObject({ address2: "", toOrganization: "", phoneNumber: null });
  });

  it("create stores an entry; any change is a new entry; delete only forgets it", async () => {
    const inputs = (await entry.check({}, declared)).inputs;
    const { id, outs } = await entry.create(inputs);
    expect(outs.entryId).toBe(Number(id));
    expect((await sb.control.addressBook(apiKey)).entries).toHaveLength(1);
    const moved = (await entry.check({}, { ...declared, address1: "9 Elm Street" })).inputs;
    const said: string[] = [];
    const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
      said.push(String(chunk));
      return true;
    });
    try {
      expect(await entry.diff(id, outs, moved)).toEqual({ changes: true, replaces: ["address1"] });
    } finally {
      spy.mockRestore();
    }
    expect(said.join("")).toContain(`Address-book entry ${id}: address1 changed: a new entry replaces it`);
    expect(await entry.diff(id, outs, inputs)).toEqual({ changes: false, replaces: [] });
    expect((await entry.read(id, outs)).props).toEqual(outs);
    await entry.delete(id, outs);
    expect((await sb.control.addressBook(apiKey)).entries).toHaveLength(1);
  });

  it("create uses the older path (entry 22) when the service answers 404 at /v1/address-book", async () => {
    const before = (await sb.control.addressBook(apiKey)).entries.length;
    await sb.control.addFault({
      method: "POST",
      path: "/v1/address-book",
      kind: "status",
      status: 404,
      times: 1,
    });
    const said: string[] = [];
    const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
      said.push(String(chunk));
      return true;
    });
    let id: string;
    try {
      ({ id } = await entry.create(
        (await entry.check({}, { ...declared, address1: "3 Oak Street" })).inputs,
      ));
    } finally {
      spy.mockRestore();
      await sb.control.clearFaults();
    }
    expect(said.join("")).toContain(
      `Address-book entry ${id}: created for 3 Oak Street, Springfield (at the service's older address-book path)`,
    );
    const entries = (await sb.control.addressBook(apiKey)).entries;
    expect(entries).toHaveLength(before + 1);
    expect(entries.at(-1)).toMatchObject({ id: Number(id) });
  });
});
