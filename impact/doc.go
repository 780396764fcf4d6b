// Package impact answers "what breaks if I change this": the blast radius of
// a symbol over the code graph, and of the symbols a diff touches.
//
// [Compute] walks the graph upstream from a target (or downstream, for what
// it depends on) and returns an [Answer]: dependents grouped by depth (d=1
// will break, d=2 likely affected, d=3 may need testing), the calls made
// through an interface the target implements (the dispatch group, never
// d=1), the places its type is used as that interface (the satisfaction
// group), affected tests and packages, edges that cross package boundaries,
// a risk level with the rule that produced it, and the freshness block.
//
// The d=1 set follows the measured definition of "will break": the
// declarations that directly reference the target, from references with
// their enclosing definitions plus incoming edges. When the graph cannot
// vouch for completeness and finds no dependent, the risk is UNKNOWN, never
// LOW.
//
// A [Verifier] (injected by the caller, typically a live language server
// behind the proxy) cross-checks d=1: each dependent is marked verified,
// graph-only or live-only; live-only sites are returned so the caller can
// add them to the graph's live layer. The empty d=1 set is checked too: a
// caller only the server knows turns an UNKNOWN into a real dependent.
// Verification is bounded by [Options.VerifyTimeout]; when the server does
// not answer in time the answer says so and its d=1 is unverified.
// Server sites are classified with the walk's own rules: a site the graph
// has as an occurrence of the target (any role) is known, never live-only;
// it verifies the dependent the walk made of it, if any. A site on an
// import line (TypeScript, JavaScript, Python: a top-level line that also
// names a module) is no dependent: importing a name does not break when
// its signature changes, and the importing module's uses that do are
// sites of their own. Another site outside any declaration is the
// document's top-level dependent, as in the walk.
//
// [ParseUnifiedDiff] and [Changes] map a diff (or unsaved buffers given as
// changed line ranges) to added, modified and deleted symbols and their
// combined impact.
package impact
