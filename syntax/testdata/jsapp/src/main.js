// Default imports of ES modules and of a CommonJS module.
import greet from "./greet.js";
import Ledger, { EMPTY } from "./ledger.js";
import discount from "./discount.js";
import Courier from "./courier.cjs";

export function main() {
  const ledger = new Ledger().add(discount(1000)).add(EMPTY);
  console.log(greet("Ada"), ledger.total(), new Courier("post").ship("b2"));
}

main();
