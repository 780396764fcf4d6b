/** A PriceRule turns a base price in cents into a final price. */
export interface PriceRule {
  apply(cents: number): number;
}

/** FlatRule takes a fixed amount off. */
export class FlatRule implements PriceRule {
  constructor(private readonly offCents: number) {}

  apply(cents: number): number {
    return Math.max(0, cents - this.offCents);
  }
}

/** PercentRule takes a percentage off. */
export class PercentRule implements PriceRule {
  constructor(private readonly percent: number) {}

  apply(cents: number): number {
    return Math.round(cents * (1 - this.percent / 100));
  }
}
