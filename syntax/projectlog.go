package syntax

import "encoding/binary"

// What a file's facts depend on besides its path and content: the answers
// of its project (go.mod, package.json, pyproject.toml, Cargo.toml between
// its directory and the root) to the questions its walk asked. The fact
// cache keeps them with the facts and reuses the facts only when the
// project still answers the same.

// projectQuery names one question a walk asks its project.
type projectQuery uint8

const (
	queryGoPackage    projectQuery = iota + 1 // goPackage(dir), and goScopeAnswer(dir)
	queryTSModule                             // tsModule(file)
	queryPythonModule                         // pythonModule(file)
	queryRustModule                           // rustModule(file)
	lastQuery         = queryRustModule
)

// projectAnswer is one question and its answer.
type projectAnswer struct {
	Query projectQuery
	Arg   string
	A, B  string
}

// appendAnswers appends answers as a fact cache entry and a document's
// record keep them: their count, then each question's byte and its
// argument and answers, each string its length and bytes.
func appendAnswers(b []byte, answers []projectAnswer) []byte {
	b = binary.AppendUvarint(b, uint64(len(answers)))
	for _, q := range answers {
		b = append(b, byte(q.Query))
		for _, s := range [...]string{q.Arg, q.A, q.B} {
			b = binary.AppendUvarint(b, uint64(len(s)))
			b = append(b, s...)
		}
	}
	return b
}

// answers reads what appendAnswers wrote; the strings share d's data.
// A failure is d's error.
func (d *factDecoder) answers() []projectAnswer {
	n := d.count()
	if d.err != nil || n == 0 {
		return nil
	}
	out := make([]projectAnswer, 0, n)
	for range n {
		if d.off >= len(d.data) {
			d.fail("cut short")
			return nil
		}
		q := projectAnswer{Query: projectQuery(d.data[d.off])}
		d.off++
		q.Arg, q.A, q.B = d.plain(), d.plain(), d.plain()
		if d.err != nil {
			return nil
		}
		out = append(out, q)
	}
	return out
}

// answer asks the project one question.
func (p *project) answer(q projectQuery, arg string) (a, b string) {
	switch q {
	case queryGoPackage:
		// The package, and what the file's names of unknown owner may
		// resolve to, which its facts depend on as much.
		a, b = p.goPackage(arg), p.goScopeAnswer(arg)
	case queryTSModule:
		a, b = p.tsModule(arg)
	case queryPythonModule:
		a, b = p.pythonModule(arg)
	case queryRustModule:
		a, b = p.rustModule(arg)
	}
	return a, b
}

// ask answers a question and, while a walk records them, records it.
func (p *project) ask(q projectQuery, arg string) (a, b string) {
	a, b = p.answer(q, arg)
	if p.recording {
		p.asked = append(p.asked, projectAnswer{q, arg, a, b})
	}
	return a, b
}

// askOne is ask for the questions with one answer.
func (p *project) askOne(q projectQuery, arg string) string {
	a, _ := p.ask(q, arg)
	return a
}

// stillAnswers reports whether the project answers each question as
// recorded.
func (p *project) stillAnswers(asked []projectAnswer) bool {
	for _, q := range asked {
		if q.Query < queryGoPackage || q.Query > lastQuery {
			return false
		}
		if a, b := p.answer(q.Query, q.Arg); a != q.A || b != q.B {
			return false
		}
	}
	return true
}
