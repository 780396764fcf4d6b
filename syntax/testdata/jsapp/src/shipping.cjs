// Shipping costs in cents, as a CommonJS module.

function shippingFor(total) {
  return total >= module.exports.FREE_OVER ? 0 : flatRate();
}

function flatRate() {
  return 490;
}

module.exports = {
  shippingFor,
  flatRate,
  label: (total) => (shippingFor(total) === 0 ? "free shipping" : "shipping " + flatRate()),
};
module.exports.FREE_OVER = 5000;
