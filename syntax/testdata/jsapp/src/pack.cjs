// Packing, as a CommonJS module whose value is a named function.
module.exports = function pack(skus) {
  return skus.length > 1 ? "box" : pack.envelope;
};
module.exports.envelope = "envelope";
