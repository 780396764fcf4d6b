// Package pricing computes prices in cents.
package pricing

// Quote returns the price of qty units at unitCents each, with a 10% discount
// from ten units on.
func Quote(unitCents, qty int) int {
	total := unitCents * qty
	if qty >= 10 {
		total -= total / 10
	}
	return total
}
