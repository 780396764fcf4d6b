package history

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/lspgraph/lspgraph/internal/gitcmd"
	"github.com/lspgraph/lspgraph/ranking"
)

// Bounds on what CoupledFuncs reads and counts.
const (
	// maxFuncCommits is the number of a file's most recent commits whose
	// hunks are read: one git process per file, a few hundred kilobytes.
	maxFuncCommits = 48
	// maxCommitDecls: a commit changing more declarations than this (a
	// rename across the tree, a sweep) ties none of them.
	maxCommitDecls = 80
	// fileOnlyShare weighs a commit that changed the function's file but
	// not the function: it says less about the function.
	fileOnlyShare = 0.25
)

// CoupledFuncs returns the declarations (functions, methods, types) that
// changed in the commits that changed fn of path, best first, at most
// limit. It reads the hunks of path's most recent commits (maxFuncCommits)
// once per Log; a declaration is named by the hunk's header (the line
// git's default rule shows: the last line before the hunk that starts at
// the left margin) and by the declaration lines the hunk itself changes.
//
// Each commit adds its recency weight, times fileOnlyShare unless it
// changed fn itself, divided by the number of other declarations it
// changed; the sum is divided by the weight of all the commits counted.
func (l *Log) CoupledFuncs(ctx context.Context, file, fn string, limit int) ([]ranking.FuncCoupling, error) {
	id, ok := l.ids[file]
	if !ok {
		return nil, nil
	}
	cis := l.byFile[id]
	if len(cis) > maxFuncCommits {
		cis = cis[:maxFuncCommits]
	}
	hashes := make([]string, len(cis))
	for i, ci := range cis {
		hashes[i] = l.commits[ci].hash
	}
	changed, err := l.changedDecls(ctx, hashes)
	if err != nil {
		return nil, err
	}
	type key struct{ path, name string }
	weight := map[key]float64{}
	count := map[key]int{}
	total := 0.0
	for _, ci := range cis {
		c := l.commits[ci]
		decls := changed[c.hash]
		w := c.weight * fileOnlyShare
		for _, d := range decls[file] {
			if sameDecl(d, fn) {
				w = c.weight
				break
			}
		}
		total += w
		n := 0
		for p, ds := range decls {
			for _, d := range ds {
				if p != file || !sameDecl(d, fn) {
					n++
				}
			}
		}
		if n == 0 || n > maxCommitDecls {
			continue
		}
		share := w / float64(n)
		for p, ds := range decls {
			for _, d := range ds {
				if p == file && sameDecl(d, fn) {
					continue
				}
				k := key{p, d}
				weight[k] += share
				count[k]++
			}
		}
	}
	out := make([]ranking.FuncCoupling, 0, len(weight))
	for k, w := range weight {
		out = append(out, ranking.FuncCoupling{Path: k.path, Name: k.name, Weight: w / total, Commits: count[k]})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Weight != out[j].Weight {
			return out[i].Weight > out[j].Weight
		}
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Name < out[j].Name
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// sameDecl reports whether a declaration named from a diff line is fn: the
// same name, or the same last component when the line gives no type (a
// TypeScript method's line names the method alone).
func sameDecl(d, fn string) bool {
	if d == fn {
		return true
	}
	if strings.Contains(d, ".") {
		return false
	}
	return d == fn[strings.LastIndex(fn, ".")+1:]
}

// changedDecls returns, per commit, the declarations each file's hunks
// changed, reading with one `git show` the commits not read before.
func (l *Log) changedDecls(ctx context.Context, hashes []string) (map[string]map[string][]string, error) {
	out := make(map[string]map[string][]string, len(hashes))
	var missing []string
	l.hunkMu.Lock()
	for _, h := range hashes {
		if d, ok := l.hunks[h]; ok {
			out[h] = d
		} else {
			missing = append(missing, h)
		}
	}
	l.hunkMu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	if l.dir == "" {
		return nil, fmt.Errorf("history: the log of %s has no work tree to read hunks from", l.Commit)
	}
	args := append([]string{"show", "--no-color", "--no-ext-diff", "--no-textconv", "--no-renames", "-U0", "--format=%x00%H"}, missing...)
	raw, err := gitcmd.Run(ctx, l.dir, args...)
	if err != nil {
		return nil, fmt.Errorf("history: reading the hunks of %d commits: %w", len(missing), err)
	}
	parsed := parseHunks(raw, l.prefix)
	l.hunkMu.Lock()
	defer l.hunkMu.Unlock()
	if l.hunks == nil {
		l.hunks = map[string]map[string][]string{}
	}
	for _, h := range missing {
		d := parsed[h]
		if d == nil {
			d = map[string][]string{}
		}
		l.hunks[h] = d
		out[h] = d
	}
	return out, nil
}

// parseHunks reads `git show -U0 --format=%x00%H` output: per commit, per
// file (paths losing prefix; files outside it left out), the declarations
// changed, each once, in order of appearance.
func parseHunks(raw []byte, prefix string) map[string]map[string][]string {
	out := map[string]map[string][]string{}
	for i, rec := range bytes.Split(raw, []byte{0}) {
		if i == 0 {
			continue
		}
		lines := strings.Split(string(rec), "\n")
		hash := strings.TrimSpace(lines[0])
		if hash == "" {
			continue
		}
		files := map[string][]string{}
		seen := map[string]bool{}
		var oldPath, cur string
		left, right := 0, 0 // lines of the current hunk still to read
		first := false      // the next hunk line is its first
		// header is the declaration the hunk's header names, taken unless
		// the hunk's first line declares one itself (then the header names
		// the one before it).
		header := ""
		add := func(name string) {
			if name == "" || cur == "" || seen[cur+"\x00"+name] {
				return
			}
			seen[cur+"\x00"+name] = true
			files[cur] = append(files[cur], name)
		}
		for _, ln := range lines[1:] {
			if left > 0 || right > 0 {
				switch {
				case strings.HasPrefix(ln, "-"):
					left--
				case strings.HasPrefix(ln, "+"):
					right--
				default:
					left, right = 0, 0 // "\ No newline at end of file", or the end
					continue
				}
				name := declName(cur, ln[1:])
				if first && name == "" && cur != "" {
					add(header)
				}
				first = false
				add(name)
				continue
			}
			switch {
			case strings.HasPrefix(ln, "--- "):
				oldPath = diffPath(strings.TrimPrefix(ln, "--- "), "a/")
			case strings.HasPrefix(ln, "+++ "):
				p := diffPath(strings.TrimPrefix(ln, "+++ "), "b/")
				if p == "" {
					p = oldPath
				}
				cur = ""
				if p != "" && strings.HasPrefix(p, prefix) {
					cur = strings.TrimPrefix(p, prefix)
				}
			case strings.HasPrefix(ln, "@@ "):
				left, right = hunkCounts(ln)
				first = true
				header = ""
				if j := strings.Index(ln[3:], "@@"); j >= 0 {
					header = declName(cur, strings.TrimSpace(ln[3+j+2:]))
				}
			}
		}
		out[hash] = files
	}
	return out
}

// diffPath returns a ---/+++ line's path without its a/ or b/ prefix, or ""
// for /dev/null and quoted (unusual) names.
func diffPath(s, side string) string {
	s = strings.TrimSuffix(s, "\t")
	if s == "/dev/null" || strings.HasPrefix(s, `"`) {
		return ""
	}
	return strings.TrimPrefix(s, side)
}

// hunkCounts reads "@@ -a,b +c,d @@": the old and new line counts.
func hunkCounts(h string) (int, int) {
	f := strings.Fields(h)
	if len(f) < 3 {
		return 0, 0
	}
	count := func(s string) int {
		_, n, ok := strings.Cut(s, ",")
		if !ok {
			return 1
		}
		c, err := strconv.Atoi(n)
		if err != nil {
			return 0
		}
		return c
	}
	return count(f[1]), count(f[2])
}

var (
	goFunc = regexp.MustCompile(`^func\s*(?:\(\s*(?:\w+\s+)?\*?\s*(\w+)(?:\[[^\]]*\])?\s*\))?\s*(\w+)\s*[\[(]`)
	goType = regexp.MustCompile(`^type\s+(\w+)`)
	jsDecl = []*regexp.Regexp{
		regexp.MustCompile(`^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:async\s+)?function\s*\*?\s*(\w+)`),
		regexp.MustCompile(`^\s*(?:export\s+)?(?:const|let|var)\s+(\w+)\s*(?::[^=]+)?=\s*(?:async\s+)?(?:function\b|\(|\w+\s*=>|<)`),
		regexp.MustCompile(`^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:class|interface|enum)\s+(\w+)`),
		regexp.MustCompile(`^\s+(?:(?:public|private|protected|static|async|override|readonly|get|set)\s+)*(\w+)\s*(?:<[^>]*>)?\([^;]*\)\s*(?::\s*[^{;=]+)?\{\s*$`),
		regexp.MustCompile(`^\s+(\w+)\s*:\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*(?::[^=]+)?=>)`),
	}
	pyDecl = regexp.MustCompile(`^\s*(?:async\s+)?(?:def|class)\s+(\w+)`)
	// jsKeywords start lines that look like methods but are statements.
	jsKeywords = map[string]bool{"if": true, "for": true, "while": true, "switch": true, "catch": true, "function": true, "return": true, "with": true, "else": true, "do": true}
)

// declName returns the name a line declares in a file of its language:
// "Type.Method" or "name" for Go functions and types, the bare name for
// TypeScript/JavaScript functions, methods, classes and Python defs; ""
// for any other line.
func declName(file, line string) string {
	switch path.Ext(file) {
	case ".go":
		if m := goFunc.FindStringSubmatch(line); m != nil {
			if m[1] != "" {
				return m[1] + "." + m[2]
			}
			return m[2]
		}
		if m := goType.FindStringSubmatch(line); m != nil {
			return m[1]
		}
	case ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts":
		for _, re := range jsDecl {
			if m := re.FindStringSubmatch(line); m != nil && !jsKeywords[m[1]] {
				return m[1]
			}
		}
	case ".py":
		if m := pyDecl.FindStringSubmatch(line); m != nil {
			return m[1]
		}
	}
	return ""
}
