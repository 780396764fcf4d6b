// A checkout requiring CommonJS modules whose value is a class or a function.
const Courier = require("./courier.cjs");
const pack = require("./pack.cjs");
const stock = require("./stock.cjs");

function checkout(sku) {
  const courier = new Courier("post");
  return `${pack([sku])}, ${courier.ship(sku)}, ${stock.inStock(sku) ? "in stock" : "back-ordered"}`;
}

module.exports = { checkout };

if (require.main === module) {
  console.log(checkout("a1"));
}
