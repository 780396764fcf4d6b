/** money renders cents as a decimal amount. */
export function money(cents) {
  return (cents / 100).toFixed(2);
}
