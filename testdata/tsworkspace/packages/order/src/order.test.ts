import { Order, checkout, skuKey } from "./index";

declare function test(name: string, fn: () => void): void;

function expectEqual<T>(got: T, want: T): void {
  if (got !== want) {
    throw new Error(`got ${String(got)}, want ${String(want)}`);
  }
}

test("total applies rules", () => {
  const order = new Order().add({ sku: "a1", unitCents: 100, qty: 3 });
  expectEqual(order.total(), 300);
  expectEqual(checkout([{ sku: "a1", unitCents: 100, qty: 10 }]).endsWith(" 900"), true);
});

test("skuKey", () => {
  expectEqual(skuKey("  ab-1 "), "AB-1");
});
