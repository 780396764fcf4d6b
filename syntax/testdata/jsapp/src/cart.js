import { priceOf, TAX } from "./prices.js";
import * as fmt from "./format.js";

/** Cart holds items and totals them. */
export class Cart {
  #items = [];

  add(sku, qty = 1) {
    this.#items.push({ sku, qty });
    return this;
  }

  total() {
    let sum = 0;
    for (const { sku, qty } of this.#items) {
      sum += priceOf(sku) * qty;
    }
    return Math.round(sum * (1 + TAX));
  }

  receipt() {
    return fmt.money(this.total());
  }
}

export const emptyCart = () => new Cart();
