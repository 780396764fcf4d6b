package ranking

import "math"

// Role is why a candidate is relevant to the target.
type Role string

const (
	RoleDefinition     Role = "definition"     // the target itself
	RoleCaller         Role = "caller"         // references or calls the target (or a caller, at distance 2)
	RoleCallee         Role = "callee"         // a function or method the target calls (or a callee's callee)
	RoleImplementation Role = "implementation" // implements the target, or is implemented by it
	RoleTest           Role = "test"           // a test that exercises the target or one of its callers
	RoleType           Role = "type"           // a type the target uses, is declared with, or belongs to
	RoleUses           Role = "uses"           // a field, constant or variable the target uses
	RoleMember         Role = "member"         // a member of the target (a type's methods and fields)
	RoleSibling        Role = "sibling"        // a member of the same type, or defined in the same file
	RoleNamesake       Role = "namesake"       // same name, no reference connects them
	RoleCoChanged      Role = "co-changed"     // a file that changed together with the target's in the history
)

// The scoring model, in one place.
//
//	score = roleWeight(role) × decay(role)^(distance−1) + Weights.Centrality × ppr/max(ppr)
//
// The role weights encode the order a careful engineer reads in: the
// definition first, then the code that calls it and the code it calls, then
// the tests that pin its behaviour, the implementations that stand behind an
// interface, the types its signature and body use, and finally the
// neighbourhood (members, siblings). The fitted Weights then scale some
// roles: the test factor (2) lifts a direct test above the callers, as
// tests change with the code they pin. Namesakes rank last: they are listed so
// that a look-alike is visible as such, not mistaken for the target.
//
// The centrality term is personalized PageRank seeded at the target over the
// candidates and the edges among them: among items of equal role, the ones
// more tied into the target's neighbourhood (a callee that the callers also
// use, a type that most candidates mention) come first. It is scaled to at
// most Weights.Centrality, less than the gap between adjacent role weights
// at distance 1, so it reorders within a role more than across roles.
func roleWeight(r Role) float64 {
	switch r {
	case RoleDefinition:
		return 4.0 // always first
	case RoleCaller, RoleCallee:
		return 1.0
	case RoleImplementation:
		return 0.8
	case RoleTest:
		return 0.7
	case RoleType:
		return 0.6
	case RoleMember:
		return 0.5
	case RoleUses:
		return 0.45
	case RoleSibling:
		return 0.3
	case RoleCoChanged:
		return 1.0 // times the coupling's weight
	case RoleNamesake:
		return 0.1
	}
	return 0
}

// roleFactor is the fitted factor on a role's weight.
func (w *Weights) roleFactor(r Role) float64 {
	switch r {
	case RoleSibling:
		return w.Sibling
	case RoleTest:
		return w.Test
	case RoleCoChanged:
		return w.CoChanged
	}
	return 1
}

// baseScore is the role weight decayed by distance.
func baseScore(r Role, distance int) float64 {
	decay := distanceDecay
	if r == RoleTest {
		decay = testDistanceDecay
	}
	return roleWeight(r) * math.Pow(decay, float64(max(distance, 1)-1))
}

// Weights are what an evaluation fits (contexteval.Fit): the score's added
// terms (locality, history, centrality) and factors on the weights of the
// neighbourhood roles for the final score (the strongest role of a
// candidate reached several ways is chosen by roleWeight alone).
// DefaultWeights are those contexteval.Fit chose on the older 50 of 100
// commits of cockroachdb/pebble, starting from hand-set ones (sibling 1,
// test 1, same type 0.1, co-changed function 0.5): on the newer 50, held
// out, file recall at 8000 tokens rose from 0.542 to 0.632 and function
// recall from 0.368 to 0.384. contexteval/testdata records, per
// evaluation set, the recall of these defaults and of a fit from them on
// each half.
type Weights struct {
	Sibling   float64 // factor on the sibling role (the file's and directory's definitions, the type's members)
	Test      float64 // factor on the test role
	CoChanged float64 // factor on the co-changed role (files and functions that changed together)

	SameFile     float64 // in the target's file, at the target's line (halves sameFileLines away)
	SameType     float64 // a member of the target's type
	SameDir      float64 // in the target's directory
	SamePackage  float64 // in the target's package, another directory
	CoChange     float64 // times the coupling of the candidate's file
	CoChangeFunc float64 // times the coupling of the candidate function itself
	Centrality   float64 // bounds the personalized PageRank term
}

// DefaultWeights are the weights Rank uses unless told otherwise.
func DefaultWeights() Weights {
	return Weights{Sibling: 0.5, Test: 2, CoChanged: 1, SameFile: 0.3, SameType: 0.05, SameDir: 0.12, SamePackage: 0.05, CoChange: 0.4, CoChangeFunc: 1, Centrality: 0.15}
}

const (
	sameFileLines  = 30.0 // the same-file term halves this many lines away
	minTopCoupling = 0.25 // couplings are scaled to the strongest, or to this when it is weaker
)

const (
	// distanceDecay multiplies the role weight once per hop beyond the first.
	distanceDecay = 0.5
	// testDistanceDecay is the slower decay of tests: a test that reaches
	// the target through two callers still exercises it, and is often the
	// only test that does.
	testDistanceDecay = 0.7
	// pprRestart is the probability of jumping back to the target per step.
	pprRestart = 0.3
	// pprIterations is enough for the scores of a few hundred nodes to settle
	// to three digits.
	pprIterations = 20
)

// Limits on the neighbourhood read per target, so that a hub symbol (a
// logger, an error constructor) does not turn one query into a scan.
const (
	maxReferences     = 2000 // occurrences of the target read for callers
	maxSecondHop      = 16   // callers/callees expanded to a second hop
	maxPerExpansion   = 32   // candidates taken from one second-hop expansion
	maxSiblings       = 24
	maxTestDepth      = 3   // callers followed up to tests
	maxTestVisits     = 400 // symbols visited on the way
	maxNamesakes      = 8   // per name
	maxNamesakeRoot   = 8   // names looked up (the target's and its callees')
	maxLinkEdges      = 256 // edges read per candidate for the centrality subgraph
	maxLinked         = 48  // candidates whose edges are read for it (in collection order)
	maxFileNeighbours = 24  // definitions of the target's file, nearest first
	maxPairedTests    = 8   // tests taken from one paired test file
	maxDirNeighbours  = 24  // files of the target's directory
	maxCoChanged      = 48  // files coupled with the target's in the history
	maxCoChangedFuncs = 32  // functions coupled with the target in the history
)
