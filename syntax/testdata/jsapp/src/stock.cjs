// Stock levels by SKU, as a CommonJS module.

const levels = { a1: 3, b2: 0 };

/** inStock reports whether a SKU can be shipped now. */
exports.inStock = function (sku) {
  return (levels[sku] ?? 0) > 0;
};

exports.restock = (sku, qty) => {
  levels[sku] = (levels[sku] ?? 0) + qty;
  return exports.inStock(sku);
};
