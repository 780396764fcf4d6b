// Package user manages customer accounts. Its Quote only looks like pricing.Quote.
package user

// Quote returns the credit quota in cents for an account of the given age in
// months, with a 10% bonus from ten months on.
func Quote(baseCents, months int) int {
	total := baseCents * months
	if months >= 10 {
		total += total / 10
	}
	return total
}
