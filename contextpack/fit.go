package contextpack

import (
	"cmp"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// What a form is worth, as a share of the item's score. A whole body
// tells most, but not much more per item than its signature and doc: the
// history evaluation (contexteval) finds that more items at a lower
// resolution find more of what changes together than fewer whole bodies
// (on pebble at 8000 tokens, function recall 0.372 → 0.413 and file recall
// 0.515 → 0.566 against body 1.0, excerpt 0.75 and a cap of 30%; more on
// vuejs/core's files), while the target and the best items still show
// their bodies.
func formValue(show string) float64 {
	switch show {
	case SnippetBody, SnippetSite:
		return 0.7
	case SnippetExcerpt, SnippetDoc:
		return 0.65
	case SnippetSignature, SnippetLine:
		return 0.55
	}
	return 0.45 // location
}

// itemCap is the most one item's text may take of the budget: a 700-line
// body (the target's own included) is cut to an excerpt rather than
// crowding out everything else.
func itemCap(budget int) int { return max(120, budget/10) }

// maxListedDrops bounds the dropped items the manifest names one by one.
const maxListedDrops = 50

// priced is an entry's forms with their costs in the pack's format.
type priced struct {
	e      *entry
	costs  []int     // per form
	values []float64 // per form, what it is worth
	cur    int       // index of the chosen form; len(forms) when absent
	file   int       // index of its file among the entries' files
}

func (q *priced) value(i int) float64 {
	if i >= len(q.values) {
		return 0
	}
	return q.values[i]
}

// fit chooses, for each ranked entry, the form to show (or none) so that
// the rendered pack stays within p.Budget, preferring what is worth most
// per token, then fills the manifest with what room is left.
// unpriced counts the ranked candidates not considered (below the best
// maxConsidered), dropped for the budget all the same.
// costs, when set, keeps what texts cost across forms and packs.
func fit(p *Pack, entries []*entry, unpriced int, oos []OutOfScope, oosCount int, costs *textCosts) error {
	pt := partsOf(p.Format)
	if costs == nil {
		costs = &textCosts{}
	}
	price := func(it *Item) int {
		if jp, ok := pt.(jsonParts); ok {
			return jp.itemTokens(it, costs)
		}
		return Tokens(pt.item(it, Language(it.Path)))
	}
	// Compact JSON prices an item's own fields once for all its forms.
	compact := p.Format == FormatJSON
	budget := p.Budget
	// The frame is priced with the counts at their largest, so that the
	// digits can only shrink.
	p.Tokens = budget
	p.Omitted = Omissions{BudgetCount: len(entries) + unpriced, Downgraded: len(entries), OutOfScopeCount: oosCount}
	// The note that out-of-scope packages went undescribed is priced at
	// its longest.
	oosNote := func(n int) string { return fmt.Sprintf("%d of %d out-of-scope packages not described", n, len(oos)) }
	priceFrame := func() int {
		cut := p.Omitted.Cut
		if len(oos) > 0 {
			p.Omitted.Cut = append(append([]string(nil), cut...), oosNote(len(oos)))
		}
		n := Tokens(pt.frame(p))
		p.Omitted.Cut = cut
		return n
	}
	frame := priceFrame()
	// Long freshness lists give way before the items do: the frame keeps
	// at most a third of the budget.
	if frame > budget/3 && p.Freshness != nil {
		trimFreshness(p)
		frame = priceFrame()
	}
	if frame > budget {
		return fmt.Errorf("%w: the answer's frame alone takes %d tokens in %s; give --budget %d or more", ErrBudget, frame, p.Format, frame+50)
	}
	room := budget - frame
	cap := itemCap(budget)
	ps := make([]*priced, len(entries))
	for i, e := range entries {
		// Capping can drop the body form, so the entry is marked absent
		// (cur) only after it.
		capBody(e, cap, costs)
		q := &priced{e: e, cur: len(e.forms)}
		for i := 1; i < len(e.forms); i++ {
			e.forms[i].note = joinNotes(e.forms[i].note, fmt.Sprintf("%s cut to %s for the budget", e.forms[0].show, cmp.Or(e.forms[i].show, "location")))
		}
		var head itemHead
		if compact {
			head = newItemHead(e.item)
		}
		for _, f := range e.forms {
			q.values = append(q.values, e.item.Score*formValue(f.show))
			it := e.item
			it.Show, it.Start, it.Text, it.Note = f.show, f.start, f.text, f.note
			if compact {
				q.costs = append(q.costs, head.formTokens(&it, costs))
			} else {
				q.costs = append(q.costs, price(&it))
			}
		}
		ps[i] = q
	}
	// Each file's head is priced once and paid by its first item: per
	// entry, the index of its file in fileCost and fileUsers.
	fileOf := map[string]int{}
	var fileCost, fileUsers []int
	for _, q := range ps {
		path := q.e.item.Path
		fi, ok := fileOf[path]
		if !ok {
			fi = len(fileCost)
			fileOf[path] = fi
			fileCost = append(fileCost, Tokens(pt.fileHead(&File{Path: path, Package: q.e.pkg})))
			fileUsers = append(fileUsers, 0)
		}
		q.file = fi
	}
	headCost := func(q *priced) int {
		if fileUsers[q.file] > 0 {
			return 0
		}
		return fileCost[q.file]
	}
	used := 0
	take := func(q *priced, i int) {
		if q.cur == len(q.e.forms) {
			used += headCost(q)
			fileUsers[q.file]++
			used += q.costs[i]
		} else {
			used += q.costs[i] - q.costs[q.cur]
		}
		q.cur = i
	}
	// The definition first, as rich as the cap and the room allow: without
	// it no neighbour makes sense.
	if len(ps) > 0 {
		d := ps[0]
		for i := range d.e.forms {
			if headCost(d)+d.costs[i] <= room {
				take(d, i)
				break
			}
		}
		if d.cur == len(d.e.forms) {
			return fmt.Errorf("%w: the target's location alone needs %d tokens beyond the %d the frame takes in %s; give --budget %d or more",
				ErrBudget, headCost(d)+d.costs[len(d.costs)-1], frame, p.Format, frame+headCost(d)+d.costs[len(d.costs)-1]+50)
		}
	}
	// Then the best value per token, one step at a time: adding an item at
	// some form, or enriching one already in.
	if len(ps) > 0 && ps[0].cur < len(ps[0].e.forms) {
		for {
			best, bestForm, bestRatio := -1, 0, 0.0
			for qi, q := range ps {
				for i := 0; i < q.cur && i < len(q.e.forms); i++ {
					var dc int
					if q.cur == len(q.e.forms) {
						dc = headCost(q) + q.costs[i]
					} else {
						dc = q.costs[i] - q.costs[q.cur]
					}
					dv := q.value(i) - q.value(q.cur)
					if dv <= 0 || used+dc > room {
						continue
					}
					r := dv / float64(max(dc, 1))
					if r > bestRatio {
						best, bestForm, bestRatio = qi, i, r
					}
				}
			}
			if best < 0 {
				break
			}
			take(ps[best], bestForm)
		}
	}
	assemble(p, ps)
	p.Omitted.BudgetCount += unpriced
	p.Omitted.Budget, p.Omitted.OutOfScope = nil, nil
	// The manifest names what room is left for: out-of-scope packages
	// first (a whole package the reader may not know of), then the best
	// of the dropped items.
	left := room - used
	for i := range oos {
		c := Tokens(pt.outOfScope(&oos[i]))
		if c > left {
			p.Omitted.Cut = append(p.Omitted.Cut, oosNote(len(oos)-i))
			break
		}
		left -= c
		p.Omitted.OutOfScope = append(p.Omitted.OutOfScope, oos[i])
	}
	for _, q := range ps {
		if q.cur < len(q.e.forms) || len(p.Omitted.Budget) >= maxListedDrops {
			continue
		}
		d := Dropped{Role: q.e.item.Role, Name: q.e.item.Name, At: fmt.Sprintf("%s:%d", q.e.item.Path, q.e.item.Line), Score: q.e.item.Score}
		c := Tokens(pt.dropped(&d))
		if c > left {
			break
		}
		left -= c
		p.Omitted.Budget = append(p.Omitted.Budget, d)
	}
	// Count what is emitted. Priced part by part the answer cannot exceed
	// the budget; should it, names and then items go until it fits.
	for {
		p.Tokens = budget
		s := p.Render()
		n := Tokens(s)
		p.Tokens = n
		if n2 := Tokens(withTokens(p, s, budget)); n2 > n {
			p.Tokens = n2
			n = n2
		}
		if n <= budget {
			return nil
		}

		if !shrink(p) {
			return fmt.Errorf("%w: the smallest answer takes %d tokens in %s", ErrBudget, n, p.Format)
		}
	}
}

// withTokens is p rendered, given s, p rendered with its Tokens field at
// was: in JSON the field is written over in s (the first "tokens" key is
// the pack's, after its target, scope, format and budget, none of which
// has one), in the other formats p is rendered again.
func withTokens(p *Pack, s string, was int) string {
	key := `"tokens":`
	switch p.Format {
	case FormatJSONPretty:
		key = `"tokens": `
	case FormatJSON:
	default:
		return p.Render()
	}
	old := key + strconv.Itoa(was)
	i := strings.Index(s, old)
	if i < 0 {
		return p.Render()
	}
	return s[:i] + key + strconv.Itoa(p.Tokens) + s[i+len(old):]
}

// shrink removes the least valuable piece of a pack that overflows.
func shrink(p *Pack) bool {
	switch {
	case len(p.Omitted.Budget) > 0:
		p.Omitted.Budget = p.Omitted.Budget[:len(p.Omitted.Budget)-1]
		return true
	case len(p.Omitted.OutOfScope) > 0:
		p.Omitted.OutOfScope = p.Omitted.OutOfScope[:len(p.Omitted.OutOfScope)-1]
		return true
	}
	// The lowest-scored item other than the definition.
	bf, bi := -1, -1
	for fi := range p.Files {
		for ii, it := range p.Files[fi].Items {
			if it.Role == "definition" {
				continue
			}
			if bf < 0 || it.Score < p.Files[bf].Items[bi].Score {
				bf, bi = fi, ii
			}
		}
	}
	if bf < 0 {
		return false
	}
	f := &p.Files[bf]
	f.Items = append(f.Items[:bi], f.Items[bi+1:]...)
	if len(f.Items) == 0 {
		p.Files = append(p.Files[:bf], p.Files[bf+1:]...)
	}
	p.Omitted.BudgetCount++
	return true
}

// capBody replaces a body whose text costs more than cap tokens with an
// excerpt: its first lines, up to the cap, and a line saying how many
// more there are. costs keeps where a text is cut, across entries and packs.
func capBody(e *entry, cap int, costs *textCosts) {
	if len(e.forms) == 0 || e.forms[0].show != SnippetBody {
		return
	}
	f := e.forms[0]
	// A text costs at most a token per byte: a short one needs no count.
	if len(f.text) <= cap {
		return
	}
	c := costs.cut(f.text, cap)
	switch {
	case c.whole:
		return
	case c.kept == 0:
		e.forms = e.forms[1:]
		return
	}
	text := f.text[:c.end] + fmt.Sprintf("… (%d more lines)\n", c.total-c.kept)
	e.forms[0] = form{show: SnippetExcerpt, start: f.start, text: text, note: fmt.Sprintf("first %d of %d lines", c.kept, c.total)}
	e.capped = true
}

// bodyCut is where a body is cut to a cap: whole when it fits, else its
// first kept lines (end bytes) of total.
type bodyCut struct {
	whole            bool
	end, kept, total int
}

// cutBody finds where text is cut to cap tokens: the lines (each with its
// newline) that fit, a prefix of the text, with room for the line that
// says how many more there are.
func cutBody(text string, cap int) bodyCut {
	if tokensAtMost(text, cap) {
		return bodyCut{whole: true}
	}
	total := strings.Count(text, "\n")
	if !strings.HasSuffix(text, "\n") {
		total++ // a last line without its newline
	}
	end, n, kept := 0, 0, 0
	for end < len(text) {
		l := text[end:]
		if i := strings.IndexByte(l, '\n'); i >= 0 {
			l = l[:i+1]
		}
		c := Tokens(l)
		if n+c+8 > cap {
			break
		}
		end += len(l)
		n += c
		if strings.HasSuffix(l, "\n") {
			kept++
		}
	}
	return bodyCut{end: end, kept: kept, total: total}
}

// assemble writes the chosen forms into the pack, a file at a time: files
// in the order of their best item, items in line order after the target.
func assemble(p *Pack, ps []*priced) {
	by := map[string]*File{}
	best := map[string]float64{}
	var order []string
	p.Omitted.BudgetCount, p.Omitted.Downgraded = 0, 0
	for _, q := range ps {
		if q.cur >= len(q.e.forms) {
			p.Omitted.BudgetCount++
			continue
		}
		f := q.e.forms[q.cur]
		it := q.e.item
		it.Show, it.Start, it.Text, it.Note = f.show, f.start, f.text, f.note
		if q.cur > 0 || q.e.capped {
			p.Omitted.Downgraded++
		}
		path := it.Path
		fl := by[path]
		if fl == nil {
			fl = &File{Path: path, Package: q.e.pkg}
			by[path] = fl
			order = append(order, path)
		}
		fl.Items = append(fl.Items, it)
		best[path] = max(best[path], it.Score)
	}
	sort.SliceStable(order, func(i, j int) bool { return best[order[i]] > best[order[j]] })
	p.Files = make([]File, 0, len(order))
	for _, path := range order {
		f := by[path]
		sort.SliceStable(f.Items, func(i, j int) bool {
			a, b := f.Items[i], f.Items[j]
			if (a.Role == "definition") != (b.Role == "definition") {
				return a.Role == "definition" // the target leads its file
			}
			return a.Line < b.Line
		})
		p.Files = append(p.Files, *f)
	}
}

// trimFreshness cuts the freshness block's document lists to their counts
// when they alone would not fit.
func trimFreshness(p *Pack) {
	f := *p.Freshness
	var cut []string
	for _, l := range []struct {
		name string
		list *[]string
	}{{"changed", &f.Changed}, {"live", &f.Live}, {"unsaved", &f.Dirty}} {
		if n := len(*l.list); n > 3 {
			*l.list = (*l.list)[:3]
			cut = append(cut, fmt.Sprintf("freshness lists %d of %d %s documents", 3, n, l.name))
		}
	}
	p.Freshness = &f
	p.Omitted.Cut = append(p.Omitted.Cut, cut...)
}

func joinNotes(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}
