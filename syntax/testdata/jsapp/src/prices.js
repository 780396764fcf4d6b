// Prices in cents by SKU.
const PRICES = { a1: 100, b2: 250 };

export const TAX = 0.2;

export function priceOf(sku) {
  return PRICES[sku] ?? 0;
}
