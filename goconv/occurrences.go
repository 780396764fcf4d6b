package goconv

import (
	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/scip"
)

// Occurrences turns the sites into the occurrences a SCIP import adds to
// its documents: one per site and needed method, with role
// graph.RoleConversion and the enclosing declaration's name range.
func (r *Result) Occurrences() map[string][]scip.ExtraOccurrence {
	out := make(map[string][]scip.ExtraOccurrence, len(r.Sites))
	for p, ss := range r.Sites {
		for _, s := range ss {
			for _, sym := range s.Needs {
				out[p] = append(out[p], scip.ExtraOccurrence{Range: s.Range, Symbol: sym,
					Roles: graph.RoleReference | graph.RoleConversion, Enclosing: s.Enclosing})
			}
		}
	}
	return out
}

// ImportOptions sets the conversion fields of a SCIP import's options.
func (r *Result) ImportOptions(o *scip.Options) {
	o.Conversions = r.Occurrences()
	o.ConversionPackages = r.Packages
}

// Count is the number of sites.
func (r *Result) Count() int {
	n := 0
	for _, ss := range r.Sites {
		n += len(ss)
	}
	return n
}
