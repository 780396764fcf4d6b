import { PriceRule } from "./rules";

export { FlatRule, PercentRule } from "./rules";
export type { PriceRule } from "./rules";

/** quote prices qty units at unitCents each, then applies every rule in order. */
export function quote(unitCents: number, qty: number, rules: PriceRule[] = []): number {
  let total = unitCents * qty;
  for (const rule of rules) {
    total = rule.apply(total);
  }
  return total;
}
