package history

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"

	"github.com/lspgraph/lspgraph/internal/gitcmd"
	"github.com/lspgraph/lspgraph/ranking"
)

// Options bound what Load reads.
type Options struct {
	// MaxCommits is the number of commits read back from the revision
	// (0: 5000).
	MaxCommits int
	// MaxFiles skips commits touching more files (0: 40).
	MaxFiles int
	// HalfLife is the number of commits after which a commit's weight
	// halves (0: 1000).
	HalfLife int
}

func (o Options) withDefaults() Options {
	if o.MaxCommits <= 0 {
		o.MaxCommits = 5000
	}
	if o.MaxFiles <= 0 {
		o.MaxFiles = 40
	}
	if o.HalfLife <= 0 {
		o.HalfLife = 1000
	}
	return o
}

// Log is the commits read from one revision, indexed by file.
type Log struct {
	// Commit is the revision's commit hash.
	Commit string
	// Commits counts the commits read (skipped ones included).
	Commits int
	opts    Options          // what Load read with (defaults filled in)
	files   []string         // interned paths
	ids     map[string]int32 // path -> index in files
	commits []commit
	byFile  map[int32][]int32 // file -> commits touching it
	// dir and prefix locate the work tree for the hunks CoupledFuncs
	// reads; hunks keeps them per commit.
	dir, prefix string
	hunkMu      sync.Mutex
	hunks       map[string]map[string][]string // commit -> path -> declarations changed
}

type commit struct {
	hash   string
	files  []int32
	age    int     // commits read before it, skipped ones included
	weight float64 // recency: recency(age, HalfLife)
}

// recency is the weight of a commit age commits back from the revision.
func recency(age, halfLife int) float64 {
	return math.Pow(0.5, float64(age)/float64(halfLife))
}

// Resolve returns the commit hash a revision names in the repository at
// dir ("" is HEAD).
func Resolve(ctx context.Context, dir, rev string) (string, error) {
	if rev == "" {
		rev = "HEAD"
	}
	if strings.HasPrefix(rev, "-") {
		return "", fmt.Errorf("history: revision %q starts with '-'", rev)
	}
	out, err := gitcmd.Run(ctx, dir, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("history: %q names no commit in %s: %w", rev, dir, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// Load reads the history reachable from rev ("" is HEAD) of the files
// under dir, a directory of a git work tree (the workspace root). Paths are
// relative to dir, as the graph's are.
func Load(ctx context.Context, dir, rev string, o Options) (*Log, error) {
	o = o.withDefaults()
	hash, err := Resolve(ctx, dir, rev)
	if err != nil {
		return nil, err
	}
	prefix, err := gitcmd.Run(ctx, dir, "rev-parse", "--show-prefix")
	if err != nil {
		return nil, fmt.Errorf("history: locating %s in its repository: %w", dir, err)
	}
	out, err := gitcmd.Run(ctx, dir, "log", "--no-merges", "--no-renames", "--format=%x00%H", "--name-only",
		fmt.Sprintf("--max-count=%d", o.MaxCommits), hash, "--", ".")
	if err != nil {
		return nil, fmt.Errorf("history: reading the log of %s: %w", hash, err)
	}
	l := parse(hash, strings.TrimSpace(string(prefix)), out, o)
	l.dir = dir
	return l, nil
}

// parse reads `git log --format=%x00%H --name-only` output, newest first.
// Paths lose prefix (the directory's path in the repository).
func parse(hash, prefix string, out []byte, o Options) *Log {
	l := &Log{Commit: hash, opts: o, prefix: prefix, ids: map[string]int32{}, byFile: map[int32][]int32{}}
	for i, rec := range bytes.Split(out, []byte{0}) {
		if i == 0 {
			continue // before the first record
		}
		lines := strings.Split(strings.TrimSpace(string(rec)), "\n")
		if len(lines) == 0 || lines[0] == "" {
			continue
		}
		age := l.Commits
		l.Commits++
		var paths []string
		for _, p := range lines[1:] {
			if p = strings.TrimSpace(p); p != "" && strings.HasPrefix(p, prefix) {
				paths = append(paths, strings.TrimPrefix(p, prefix))
			}
		}
		if len(paths) == 0 || len(paths) > o.MaxFiles {
			continue
		}
		c := commit{hash: strings.TrimSpace(lines[0]), age: age, weight: recency(age, o.HalfLife)}
		ci := int32(len(l.commits))
		for _, p := range paths {
			id, ok := l.ids[p]
			if !ok {
				id = int32(len(l.files))
				l.ids[p] = id
				l.files = append(l.files, p)
			}
			c.files = append(c.files, id)
			l.byFile[id] = append(l.byFile[id], ci)
		}
		l.commits = append(l.commits, c)
	}
	return l
}

// Coupled returns the files that changed together with path, best first
// (ties by path), at most limit.
func (l *Log) Coupled(path string, limit int) []ranking.Coupling {
	id, ok := l.ids[path]
	if !ok {
		return nil
	}
	total := 0.0
	weight := map[int32]float64{}
	count := map[int32]int{}
	for _, ci := range l.byFile[id] {
		c := l.commits[ci]
		total += c.weight
		if len(c.files) < 2 {
			continue
		}
		share := c.weight / float64(len(c.files)-1)
		for _, f := range c.files {
			if f != id {
				weight[f] += share
				count[f]++
			}
		}
	}
	out := make([]ranking.Coupling, 0, len(weight))
	for f, w := range weight {
		out = append(out, ranking.Coupling{Path: l.files[f], Weight: w / total, Commits: count[f]})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Weight != out[j].Weight {
			return out[i].Weight > out[j].Weight
		}
		return out[i].Path < out[j].Path
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}
