// Package goconv finds, with the Go type checker, every place a concrete
// type becomes an interface value: the conversion sites whose code stops
// compiling when the concrete type stops implementing the interface.
//
// [Collect] loads the packages of a module (golang.org/x/tools/go/packages,
// tests included) and walks each typed syntax tree for assignments, variable
// declarations (`var _ I = T{}` included), call arguments, explicit
// conversions, returns, composite-literal fields, elements and map keys and
// values, channel sends, comparisons with an interface value, and type
// assertions and type-switch cases on an interface value. Each [Site] names
// its document, range, enclosing top-level declaration, concrete type,
// interface and the methods the conversion needs: for every method of the
// interface's method set (embedded interfaces included), the concrete
// method that provides it, as a [graph.ConversionSymbol].
//
// The sites become occurrences of those symbols (role
// [graph.RoleConversion]) in the documents of a SCIP import, so that impact
// reads the conversion sites that need a method as that method's
// references: the satisfaction group is then exact.
package goconv
