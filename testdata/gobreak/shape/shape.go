// Package shape declares interfaces and a concrete type that implements
// them, for the satisfaction sites in package use.
package shape

// Namer names a thing.
type Namer interface {
	Name() string
}

// Sizer sizes a thing.
type Sizer interface {
	Size() int
}

// Shape embeds Namer: it declares Name through the embedding.
type Shape interface {
	Namer
	Area() float64
}

// Square implements Namer, Sizer and Shape.
type Square struct {
	Side float64
}

// Name is declared by Namer (and by Shape through Namer).
func (s Square) Name() string { return "square" }

// Area is declared by Shape.
func (s Square) Area() float64 { return s.Side * s.Side }

// Size is declared by Sizer.
func (s Square) Size() int { return int(s.Side) }

// Perimeter is declared by no interface.
func (s Square) Perimeter() float64 { return 4 * s.Side }
