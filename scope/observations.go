package scope

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/lspgraph/lspgraph/internal/lang"
)

// observationsFormat is the version of what SaveObservations writes.
const observationsFormat = 1

// savedObservations is what SaveObservations writes.
type savedObservations struct {
	Format int `json:"format"`
	// Key is the caller's (the state of the graph the documents were
	// observed in), Workspace the analysis's (workspaceKey).
	Key       string                      `json:"key"`
	Workspace string                      `json:"workspace"`
	Documents map[string]savedObservation `json:"documents"`
}

// savedObservation is a docObservation.
type savedObservation struct {
	Why     map[string][]Why `json:"why,omitempty"`
	Skipped []string         `json:"skipped,omitempty"`
}

// ObservedDocuments returns how many documents the analysis has observed (or taken
// observed from LoadObservations).
func (a *Analysis) ObservedDocuments() int { return len(a.docDeps) }

// SaveObservations encodes what the analysis observed of each document
// that keep accepts, for an analysis of the same graph and workspace in
// another process (LoadObservations), under key: the caller's name for the
// state of the graph the documents were observed in. A command line asked
// a question without a session observes the packages of its closure
// again otherwise: half of a context question on GOROOT's source.
func (a *Analysis) SaveObservations(key string, keep func(path string) bool) ([]byte, error) {
	out := savedObservations{Format: observationsFormat, Key: key, Workspace: a.workspaceKey(), Documents: map[string]savedObservation{}}
	for p, d := range a.docDeps {
		if !keep(p) {
			continue
		}
		s := savedObservation{Why: d.why}
		for to := range d.skipped {
			s.Skipped = append(s.Skipped, to)
		}
		slices.Sort(s.Skipped)
		out.Documents[p] = s
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("scope: encoding observations: %w", err)
	}
	return b, nil
}

// LoadObservations takes the observations of the documents keep accepts
// from b, written by SaveObservations under a key accept accepts by an
// analysis of the same workspace packages, test and build exclusions and
// MinConfidence; it reports whether it took them (false, and no error,
// for observations of another state or workspace). The documents it
// takes are not read again when their packages are observed. A caller
// that accepts observations of an earlier state of the graph brings them
// up to date with Update.
func (a *Analysis) LoadObservations(b []byte, accept func(key string) bool, keep func(path string) bool) (bool, error) {
	var in savedObservations
	if err := json.Unmarshal(b, &in); err != nil {
		return false, fmt.Errorf("scope: reading observations: %w", err)
	}
	if in.Format != observationsFormat || in.Workspace != a.workspaceKey() || !accept(in.Key) {
		return false, nil
	}
	for p, s := range in.Documents {
		if _, known := a.docPkg[p]; !known || !keep(p) {
			continue
		}
		if _, have := a.docDeps[p]; have {
			continue
		}
		d := docObservation{why: s.Why}
		for _, to := range s.Skipped {
			if d.skipped == nil {
				d.skipped = map[string]bool{}
			}
			d.skipped[to] = true
		}
		a.docDeps[p] = d
	}
	return true, nil
}

// workspaceKey names what observations depend on besides the graph: the
// packages documents map to, the files a package's observation leaves
// out, and MinConfidence.
func (a *Analysis) workspaceKey() string {
	var b strings.Builder
	b.WriteString(strconv.FormatFloat(a.MinConfidence, 'g', -1, 64))
	b.WriteString("\x00" + strconv.FormatBool(a.ws.byPackage))
	for _, p := range a.ws.Packages {
		b.WriteString("\x00" + p.Name + "\x01" + string(p.Kind) + "\x01" + p.Dir)
	}
	for _, f := range sortedStrings(a.ws.goExcluded) {
		b.WriteString("\x00!" + f)
	}
	return lang.HashContent([]byte(b.String()))
}
