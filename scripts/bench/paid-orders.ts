/**
 * Thousands of checked-out orders in seconds, for the benchmark and the tests of the sandbox's time
 * at scale (scripts/bench/sandbox-time.ts, test/reliability/deliver-at-scale.test.ts): written
 * through the sandbox's own domain parts into the database of a `--data` folder before the server
 * process starts on it (over HTTP the same orders take a minute of three requests each). The
 * sandbox runs at speed 0 meanwhile, so its clock stays where the orders' dates put it.
 */
import * as path from "node:path";
import { newOrderRecipient } from "../../provider/api/recipients";
import { AppendRecipientsRequest } from "../../provider/api/schemas";
import { Sandbox } from "../../sandbox/sandbox";

const DAY_MS = 86_400_000;

export interface SeededAccount {
  apiKey: string;
  orderIds: number[];
}

/**
 * One account per entry, each with `count` one-recipient orders checked out (Standard, Normal) and
 * held until `holdAfterDays` days after the clock, plus one second per order: every order's steps
 * (Ready For Production, In Production, Mailed, Complete) fall at instants of its own.
 */
export async function seedCheckedOutOrders(
  data: string,
  accounts: { count: number; holdAfterDays: number }[],
): Promise<SeededAccount[]> {
  const sandbox = new Sandbox({ storage: path.join(data, "sandbox.db"), speed: 0, log: () => {} });
  try {
    const start = sandbox.clock.nowMs();
    // One transaction for all of it: a commit an order would be most of the time.
    return sandbox.store.tx(() =>
      accounts.map(({ count, holdAfterDays }, a) => {
        const { apiKey, account } = sandbox.accounts.create({ email: `scale${a}@shop.test`, balance: 1e6 });
        const template = sandbox.templates.create(account.id, {
          name: "Scale",
          product: "Handwritten Postcard",
        });
        const orderIds: number[] = [];
        for (let i = 0; i < count; i++) {
          const { orderId } = sandbox.orders.create(account.id, { templateId: template.id });
          const batch = AppendRecipientsRequest.parse({
            recipients: [
              newOrderRecipient({
                address: {
                  address1: `${i + 1} Oak Avenue`,
                  city: "Springfield",
                  state: "IL",
                  zipCode: "62701",
                  country: "US",
                },
                personal: { firstName: `R${i}`, lastName: "Scale" },
              }),
            ],
          }).recipients;
          sandbox.recipients.append(account.id, orderId, batch);
          sandbox.checkout.execute(account.id, orderId, {
            postageType: "Standard",
            productionSpeed: "Normal",
            holdUntilDate: new Date(start + holdAfterDays * DAY_MS + i * 1000).toISOString(),
          });
          orderIds.push(orderId);
        }
        return { apiKey, orderIds };
      }),
    );
  } finally {
    await sandbox.close();
  }
}
