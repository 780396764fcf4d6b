import { quote, PercentRule, type PriceRule } from "@shop/pricing";

/** One line of an order. */
export interface OrderLine {
  sku: string;
  unitCents: number;
  qty: number;
}

/** Receipt width in columns. */
export const HEADER_WIDTH = 32;

/** Receipt header; the clef is an astral character (two UTF-16 code units, four UTF-8 bytes). */
export const HEADER = "Reçu 𝄞 " + String(HEADER_WIDTH);

/** An Order collects lines and prices them with @shop/pricing. */
export class Order {
  private readonly lines: OrderLine[] = [];

  constructor(private readonly rules: PriceRule[] = []) {}

  add(line: OrderLine): this {
    this.lines.push(line);
    return this;
  }

  /** linePrice is the lowest-level method: it calls quote. */
  linePrice(line: OrderLine): number {
    return quote(line.unitCents, line.qty, this.rules);
  }

  /** subtotal calls linePrice (depth 1). */
  subtotal(): number {
    return this.lines.reduce((sum, line) => sum + this.linePrice(line), 0);
  }

  /** total calls subtotal (depth 2). */
  total(): number {
    return this.subtotal();
  }
}

/** checkout calls Order.total (depth 3). */
export function checkout(lines: OrderLine[]): string {
  const order = new Order([new PercentRule(10)]);
  for (const line of lines) {
    order.add(line);
  }
  return `${HEADER} ${order.total()}`;
}

/** skuKey normalises a SKU; only the tests call it. */
export function skuKey(sku: string): string {
  return sku.trim().toUpperCase();
}
