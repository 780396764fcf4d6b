package contexteval

import (
	"bufio"
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/lspgraph/lspgraph/internal/gitcmd"
)

// Func is a function declaration in a source file, by the name a pack item
// carries for it ("DB.Get", "ReactiveEffect.run", "render"), with its lines
// (1-based, its doc comment included).
type Func struct {
	Name     string
	From, To int
}

// Source is one file's text at one commit.
type Source struct {
	Path string
	Text []byte
}

// Parser finds the function declarations of source files, independently of
// the graph under evaluation.
type Parser interface {
	// Funcs returns each source's functions, in the sources' order.
	Funcs(ctx context.Context, srcs []Source) ([][]Func, error)
	// Pathspecs are the git pathspecs of the files it parses ("*.go").
	Pathspecs() []string
}

// Changed is a function a commit changed: its file and its name.
type Changed struct{ Path, Name string }

// Case is one commit: the files and functions it changed.
type Case struct {
	Commit, Parent string
	Files          []string // source files changed (kept or added), in path order
	Funcs          []Changed
}

// TruthFiles are the case's files other than the seed's.
func (c *Case) TruthFiles(seed Changed) []string {
	var out []string
	for _, f := range c.Files {
		if f != seed.Path {
			out = append(out, f)
		}
	}
	return out
}

// TruthFuncs are the case's functions other than the seed.
func (c *Case) TruthFuncs(seed Changed) []Changed {
	var out []Changed
	for _, f := range c.Funcs {
		if f != seed {
			out = append(out, f)
		}
	}
	return out
}

// Recall is the share of the truth files and functions among shown.
func (c *Case) Recall(seed Changed, shown []Changed) (files, funcs float64) {
	paths := map[string]bool{}
	names := map[Changed]bool{}
	for _, s := range shown {
		paths[s.Path] = true
		names[s] = true
	}
	tf, tn := c.TruthFiles(seed), c.TruthFuncs(seed)
	hit := 0
	for _, f := range tf {
		if paths[f] {
			hit++
		}
	}
	if len(tf) > 0 {
		files = float64(hit) / float64(len(tf))
	}
	hit = 0
	for _, f := range tn {
		if names[f] {
			hit++
		}
	}
	if len(tn) > 0 {
		funcs = float64(hit) / float64(len(tn))
	}
	return files, funcs
}

// BuildCases lists the non-merge commits reachable from rev (rev included),
// newest first, that change between 2 and 30 of the parser's files and at
// least one function, at most limit, with the functions each changed.
func BuildCases(ctx context.Context, root, rev string, p Parser, limit int) ([]Case, error) {
	args := append([]string{"log", "--no-merges", "--format=%H %P", fmt.Sprintf("--max-count=%d", limit*6), rev, "--"}, p.Pathspecs()...)
	log, err := gitcmd.Run(ctx, root, args...)
	if err != nil {
		return nil, fmt.Errorf("contexteval: listing commits: %w", err)
	}
	type pending struct {
		c       Case
		changed map[string][]int
		srcs    []Source
	}
	var all []pending
	sc := bufio.NewScanner(strings.NewReader(string(log)))
	for sc.Scan() && len(all) < limit*2 {
		f := strings.Fields(sc.Text())
		if len(f) != 2 {
			continue
		}
		c := Case{Commit: f[0], Parent: f[1]}
		args := append([]string{"diff", "-U0", "--no-renames", "--diff-filter=AM", c.Parent, c.Commit, "--"}, p.Pathspecs()...)
		diff, err := gitcmd.Run(ctx, root, args...)
		if err != nil {
			return nil, fmt.Errorf("contexteval: diff of %s: %w", c.Commit, err)
		}
		changed := ChangedLines(string(diff))
		if len(changed) < 2 || len(changed) > 30 {
			continue
		}
		pe := pending{c: c, changed: changed}
		for _, path := range slices.Sorted(maps.Keys(changed)) {
			pe.c.Files = append(pe.c.Files, path)
			src, err := gitcmd.Run(ctx, root, "show", c.Commit+":"+path)
			if err != nil {
				return nil, fmt.Errorf("contexteval: %s at %s: %w", path, c.Commit, err)
			}
			pe.srcs = append(pe.srcs, Source{Path: path, Text: src})
		}
		all = append(all, pe)
	}
	// One parse for every file of every commit (a parser may be a process).
	var srcs []Source
	for _, pe := range all {
		srcs = append(srcs, pe.srcs...)
	}
	funcs, err := p.Funcs(ctx, srcs)
	if err != nil {
		return nil, err
	}
	var out []Case
	i := 0
	for _, pe := range all {
		for _, s := range pe.srcs {
			pe.c.Funcs = append(pe.c.Funcs, touched(s.Path, funcs[i], pe.changed[s.Path])...)
			i++
		}
		if len(pe.c.Funcs) > 0 && len(out) < limit {
			out = append(out, pe.c)
		}
	}
	return out, nil
}

// touched returns the functions holding a changed line, each name once.
func touched(path string, fs []Func, lines []int) []Changed {
	var out []Changed
	seen := map[string]bool{}
	for _, f := range fs {
		if seen[f.Name] {
			continue
		}
		for _, l := range lines {
			if l >= f.From && l <= f.To {
				seen[f.Name] = true
				out = append(out, Changed{path, f.Name})
				break
			}
		}
	}
	return out
}

// ChangedLines parses `git diff -U0` into the new side's changed lines per
// file (a pure deletion marks the line it happened before).
func ChangedLines(diff string) map[string][]int {
	out := map[string][]int{}
	cur := ""
	for _, l := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(l, "+++ "):
			cur = strings.TrimPrefix(strings.TrimPrefix(l, "+++ "), "b/")
			if cur == "/dev/null" {
				cur = ""
			}
		case strings.HasPrefix(l, "@@ ") && cur != "":
			f := strings.Fields(l) // @@ -a,b +c,d @@
			if len(f) < 3 {
				continue
			}
			nums := strings.SplitN(strings.TrimPrefix(f[2], "+"), ",", 2)
			start, _ := strconv.Atoi(nums[0])
			count := 1
			if len(nums) == 2 {
				count, _ = strconv.Atoi(nums[1])
			}
			if count == 0 {
				out[cur] = append(out[cur], max(start, 1))
			}
			for i := 0; i < count; i++ {
				out[cur] = append(out[cur], start+i)
			}
		}
	}
	return out
}
