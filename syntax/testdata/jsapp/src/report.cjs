// A stock and shipping report, requiring the CommonJS modules.
const stock = require("./stock.cjs");
const { label, FREE_OVER: freeOver } = require("./shipping.cjs");

function report(sku, total) {
  const note = total >= freeOver ? "free shipping" : label(total);
  return `${sku}: ${stock.inStock(sku) ? "in stock" : "restocked " + stock.restock(sku, 5)}, ${note}`;
}

module.exports = { report };

if (require.main === module) {
  console.log(report("a1", 6000));
  console.log(report("b2", 1200));
}
