// Package use converts shape.Square to interfaces in every way Go allows.
package use

import (
	"fmt"

	"example.com/gobreak/shape"
)

// var declaration at package level.
var _ shape.Shape = shape.Square{}

// Assign converts by assignment.
func Assign() shape.Namer {
	var n shape.Namer
	n = shape.Square{Side: 1}
	return n
}

// Declare converts in a local var declaration.
func Declare() {
	var s shape.Shape = shape.Square{Side: 2}
	_ = s
}

func printName(n shape.Namer) { fmt.Println(n.Name()) }

// Argument converts a function argument.
func Argument() {
	printName(shape.Square{Side: 3})
}

// Return converts a returned value.
func Return() shape.Shape {
	return shape.Square{Side: 4}
}

// Holder has an interface field.
type Holder struct {
	N shape.Namer
}

// Field converts a composite-literal field.
func Field() Holder {
	return Holder{N: shape.Square{Side: 5}}
}

// Elements converts slice and map elements.
func Elements() ([]shape.Namer, map[string]shape.Shape) {
	return []shape.Namer{shape.Square{Side: 6}}, map[string]shape.Shape{"sq": shape.Square{Side: 7}}
}

// Send converts a value sent on a channel.
func Send(ch chan shape.Sizer) {
	ch <- shape.Square{Side: 8}
}

// Compare converts to compare with an interface value.
func Compare(n shape.Namer) bool {
	return n == shape.Square{Side: 9}
}

// Assert asserts and switches on an interface value.
func Assert(n shape.Namer) float64 {
	if sq, ok := n.(shape.Square); ok {
		return sq.Side
	}
	switch v := n.(type) {
	case shape.Square:
		return v.Side
	}
	return 0
}

// Stringify converts to interfaces that declare none of Square's methods.
func Stringify() string {
	var a any = shape.Square{Side: 10}
	return fmt.Sprint(a, shape.Square{Side: 11})
}

func apply(f func() float64) float64 { return f() }

// MethodValue passes a method value on without calling it.
func MethodValue() float64 {
	return apply(shape.Square{Side: 12}.Perimeter)
}

// Direct calls the methods.
func Direct() string {
	sq := shape.Square{Side: 13}
	return fmt.Sprint(sq.Name(), sq.Area(), sq.Size(), sq.Perimeter())
}
