// A courier ships parcels, as a CommonJS module whose value is a class.
class Courier {
  constructor(name) {
    this.name = name;
  }

  ship(sku) {
    return `${sku} via ${this.name}`;
  }
}

module.exports = Courier;
