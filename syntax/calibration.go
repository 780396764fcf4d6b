package syntax

import "math"

// calibrated is each rule's confidence by language: the precision of the
// rule's call edges against a precise index of a real code base, measured
// by `lspgraph bench calibrate` (CALIBRATION.md has the tables and the
// commands: Go on pebble with scip-go, TypeScript on vuejs/core with
// scip-typescript, Python on flask with scip-python), cut to two decimals
// and to at most [MaxCalibrated]. A rule a language was not measured for
// (Java, Rust, JavaScript; rules a corpus made no call edge with) keeps
// the default of the constants in resolve.go.
var calibrated = map[string]map[string]float64{
	"go": {
		ReasonSameFile:     0.99,
		ReasonSamePackage:  0.99,
		ReasonImported:     0.99,
		ReasonReceiver:     0.99,
		ReasonDeclared:     0.99,
		ReasonInferred:     0.99,
		ReasonPromoted:     0.99,
		ReasonUniqueGlobal: 0.31,
		ReasonAmbiguous:    0.09,
	},
	"typescript": {
		ReasonSameFile:     0.99,
		ReasonImported:     0.98,
		ReasonReceiver:     0.99,
		ReasonDeclared:     0.99,
		ReasonUniqueGlobal: 0.33,
		ReasonAmbiguous:    0.08,
	},
	"python": {
		ReasonSameFile:     0.99,
		ReasonImported:     0.94,
		ReasonReceiver:     0.99,
		ReasonDeclared:     0.99,
		ReasonUniqueGlobal: 0.48,
		ReasonAmbiguous:    0.01,
	},
}

// MaxCalibrated is the highest confidence a measured rule gets: 1.0 is
// kept for declarations and precise facts, which a guess without types
// never is.
const MaxCalibrated = 0.99

// CalibratedConfidence turns a measured precision into a confidence: cut
// (not rounded) to two decimals, at most MaxCalibrated.
func CalibratedConfidence(precision float64) float64 {
	return min(math.Floor(precision*100+1e-9)/100, MaxCalibrated)
}

// RuleConfidence returns the confidence of the edges rule reason makes in
// documents of language lang: the measured one where there is one, else
// the rule's default.
func RuleConfidence(lang, reason string) float64 {
	if c, ok := calibrated[lang][reason]; ok {
		return c
	}
	for _, r := range Rules() {
		if r.Reason == reason {
			return r.Confidence
		}
	}
	return 0
}

// Calibrated reports whether rule reason was measured for language lang.
func Calibrated(lang, reason string) bool {
	_, ok := calibrated[lang][reason]
	return ok
}
