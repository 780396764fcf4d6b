package impact

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// LineRange is a span of lines, 1-based and inclusive. An empty range
// (End == Start-1) is an insertion point between lines End and Start.
type LineRange struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Empty reports whether r is an insertion point.
func (r LineRange) Empty() bool { return r.End < r.Start }

// FileChange is what a diff says about one file.
type FileChange struct {
	// Status is "A" (added), "M" (modified), "D" (deleted) or "R"
	// (renamed from OldPath to Path, possibly modified).
	Status  string `json:"status"`
	Path    string `json:"path,omitempty"`    // new path; empty when deleted
	OldPath string `json:"oldPath,omitempty"` // old path; empty when added
	// Added lists the new file's added or changed lines.
	Added []LineRange `json:"added,omitempty"`
	// Removed lists the old file's removed or changed lines.
	Removed []LineRange `json:"removed,omitempty"`
	Binary  bool        `json:"binary,omitempty"`
}

// ParseUnifiedDiff parses `git diff -U0 -M` output (any context size
// works; context lines are not counted as changed). Paths are taken from
// the "diff --git", "rename from/to" and "---/+++" lines, without their
// a/ and b/ prefixes.
func ParseUnifiedDiff(r io.Reader) ([]FileChange, error) {
	var out []FileChange
	var cur *FileChange
	var oldLine, newLine, oldLeft, newLeft int
	inHunk := false
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	n := 0
	flush := func() {
		if cur != nil {
			switch cur.Status {
			case "":
				cur.Status = "M"
			case "A":
				cur.Removed = nil
			case "D":
				cur.Added = nil
			}
			out = append(out, *cur)
		}
		cur = nil
	}
	for sc.Scan() {
		n++
		line := sc.Text()
		if inHunk && (oldLeft > 0 || newLeft > 0) {
			switch {
			case strings.HasPrefix(line, "-"):
				addLine(&cur.Removed, oldLine)
				oldLine++
				oldLeft--
				continue
			case strings.HasPrefix(line, "+"):
				addLine(&cur.Added, newLine)
				newLine++
				newLeft--
				continue
			case strings.HasPrefix(line, " "):
				oldLine++
				newLine++
				oldLeft--
				newLeft--
				continue
			case strings.HasPrefix(line, `\`): // "\ No newline at end of file"
				continue
			}
		}
		inHunk = false
		switch {
		case strings.HasPrefix(line, "diff --git "):
			flush()
			cur = &FileChange{}
			a, b := splitGitPaths(strings.TrimPrefix(line, "diff --git "))
			cur.OldPath, cur.Path = a, b
		case cur == nil:
			// Preamble before the first file.
		case strings.HasPrefix(line, "new file mode"):
			cur.Status, cur.OldPath = "A", ""
		case strings.HasPrefix(line, "deleted file mode"):
			cur.Status, cur.Path = "D", ""
		case strings.HasPrefix(line, "rename from "):
			cur.Status, cur.OldPath = "R", unquote(strings.TrimPrefix(line, "rename from "))
		case strings.HasPrefix(line, "rename to "):
			cur.Status, cur.Path = "R", unquote(strings.TrimPrefix(line, "rename to "))
		case strings.HasPrefix(line, "Binary files "):
			cur.Binary = true
		case strings.HasPrefix(line, "--- "):
			if p := diffPath(strings.TrimPrefix(line, "--- ")); p == "" {
				cur.Status, cur.OldPath = "A", ""
			} else if cur.Status != "R" {
				cur.OldPath = p
			}
		case strings.HasPrefix(line, "+++ "):
			if p := diffPath(strings.TrimPrefix(line, "+++ ")); p == "" {
				cur.Status, cur.Path = "D", ""
			} else if cur.Status != "R" {
				cur.Path = p
			}
		case strings.HasPrefix(line, "@@ "):
			os, oc, ns, nc, err := parseHunkHeader(line)
			if err != nil {
				return nil, fmt.Errorf("impact: diff line %d: %w", n, err)
			}
			if oc == 0 {
				cur.Removed = append(cur.Removed, LineRange{Start: os + 1, End: os})
			}
			if nc == 0 {
				cur.Added = append(cur.Added, LineRange{Start: ns + 1, End: ns})
			}
			oldLine, newLine, oldLeft, newLeft = os, ns, oc, nc
			inHunk = true
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("impact: reading diff: %w", err)
	}
	flush()
	return out, nil
}

// addLine extends the last range when line follows it, else starts one.
func addLine(rs *[]LineRange, line int) {
	if k := len(*rs); k > 0 && !(*rs)[k-1].Empty() && (*rs)[k-1].End == line-1 {
		(*rs)[k-1].End = line
		return
	}
	*rs = append(*rs, LineRange{Start: line, End: line})
}

// parseHunkHeader parses "@@ -a[,b] +c[,d] @@".
func parseHunkHeader(s string) (os, oc, ns, nc int, err error) {
	f := strings.Fields(s)
	if len(f) < 3 || !strings.HasPrefix(f[1], "-") || !strings.HasPrefix(f[2], "+") {
		return 0, 0, 0, 0, fmt.Errorf("malformed hunk header %q", s)
	}
	if os, oc, err = parseSpan(f[1][1:]); err != nil {
		return 0, 0, 0, 0, fmt.Errorf("hunk header %q: %w", s, err)
	}
	if ns, nc, err = parseSpan(f[2][1:]); err != nil {
		return 0, 0, 0, 0, fmt.Errorf("hunk header %q: %w", s, err)
	}
	return os, oc, ns, nc, nil
}

func parseSpan(s string) (start, count int, err error) {
	a, b, found := strings.Cut(s, ",")
	if start, err = strconv.Atoi(a); err != nil {
		return 0, 0, err
	}
	count = 1
	if found {
		if count, err = strconv.Atoi(b); err != nil {
			return 0, 0, err
		}
	}
	if start < 0 || count < 0 {
		return 0, 0, fmt.Errorf("negative line number or count in %q", s)
	}
	return start, count, nil
}

// diffPath strips the a/ or b/ prefix of a ---/+++ path; "/dev/null" is "".
func diffPath(s string) string {
	s = unquote(strings.TrimSuffix(s, "\t"))
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	if s == "/dev/null" {
		return ""
	}
	if strings.HasPrefix(s, "a/") || strings.HasPrefix(s, "b/") {
		return s[2:]
	}
	return s
}

// splitGitPaths splits "a/x b/y" from a "diff --git" line (unquoted paths
// without " b/" inside them; quoted ones are handled by the later lines).
func splitGitPaths(s string) (string, string) {
	if i := strings.Index(s, " b/"); i >= 0 && strings.HasPrefix(s, "a/") {
		return s[2:i], s[i+3:]
	}
	return "", ""
}

// unquote undoes git's C-style quoting of unusual paths.
func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	return s
}

// newLine maps a line of the old file that the diff left unchanged to its
// number in the new file; ok is false for a removed or changed line.
// Unchanged lines keep their order, so the k-th unchanged line of the old
// file is the k-th unchanged line of the new one.
func (f FileChange) newLine(old int) (int, bool) {
	if within(f.Removed, old) {
		return 0, false
	}
	k := old - countBelow(f.Removed, old)
	n := k
	for {
		next := k + countBelow(f.Added, n+1)
		if next == n {
			return n, true
		}
		n = next
	}
}

// within reports whether line lies in one of the (non-empty) ranges.
func within(rs []LineRange, line int) bool {
	for _, r := range rs {
		if !r.Empty() && r.Start <= line && line <= r.End {
			return true
		}
	}
	return false
}

// countBelow counts the lines of the ranges that come before line.
func countBelow(rs []LineRange, line int) int {
	n := 0
	for _, r := range rs {
		if r.Empty() || r.Start >= line {
			continue
		}
		n += min(r.End, line-1) - r.Start + 1
	}
	return n
}
