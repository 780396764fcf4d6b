import { money } from "./format.js";

/** Ledger adds up amounts in cents. */
class Ledger {
  #lines = [];

  add(cents) {
    this.#lines.push(cents);
    return this;
  }

  total() {
    return money(this.#lines.reduce((a, b) => a + b, 0));
  }
}

export const EMPTY = 0;

export { Ledger as default };
