/** A customer account. */
export interface User {
  id: string;
  months: number;
}

/** quote returns a credit quota; it only looks like @shop/pricing's quote. */
export function quote(baseCents: number, months: number): number {
  let total = baseCents * months;
  if (months >= 10) {
    total += total / 10;
  }
  return total;
}

/** creditFor is the quota of one user. */
export function creditFor(user: User): number {
  return quote(500, user.months);
}
