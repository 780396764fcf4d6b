package scope

import (
	"path"
	"strings"
)

// tomlEntry is one key = value line of a TOML file, in its table.
type tomlEntry struct {
	table, key, value string
	line              int
}

// parseTOMLSubset reads the subset of TOML a pyproject.toml needs for
// discovery: [table] headers, key = value pairs whose values are strings,
// arrays (possibly spanning lines) or inline tables, kept as raw text.
func parseTOMLSubset(src string) []tomlEntry {
	var out []tomlEntry
	table := ""
	lines := strings.Split(src, "\n")
	for i := 0; i < len(lines); i++ {
		t := strings.TrimSpace(stripTOMLComment(lines[i]))
		if t == "" {
			continue
		}
		if strings.HasPrefix(t, "[") && !strings.Contains(t, "=") {
			table = strings.TrimSpace(strings.Trim(t, "[]"))
			continue
		}
		eq := strings.Index(t, "=")
		if eq < 0 {
			continue
		}
		key := unquoteYAML(strings.TrimSpace(t[:eq]))
		val := strings.TrimSpace(t[eq+1:])
		start := i
		for depth(val) > 0 && i+1 < len(lines) {
			i++
			val += " " + strings.TrimSpace(stripTOMLComment(lines[i]))
		}
		out = append(out, tomlEntry{table: table, key: key, value: val, line: start + 1})
	}
	return out
}

func stripTOMLComment(s string) string {
	in := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case in != 0:
			if c == in {
				in = 0
			}
		case c == '"' || c == '\'':
			in = c
		case c == '#':
			return s[:i]
		}
	}
	return s
}

// depth is the bracket nesting left open at the end of a value.
func depth(v string) int {
	d := 0
	in := byte(0)
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case in != 0:
			if c == in {
				in = 0
			}
		case c == '"' || c == '\'':
			in = c
		case c == '[' || c == '{':
			d++
		case c == ']' || c == '}':
			d--
		}
	}
	return d
}

// tomlStrings returns the quoted strings of a raw value.
func tomlStrings(v string) []string {
	var out []string
	for {
		i := strings.IndexAny(v, `"'`)
		if i < 0 {
			return out
		}
		q := v[i]
		j := strings.IndexByte(v[i+1:], q)
		if j < 0 {
			return out
		}
		out = append(out, v[i+1:i+1+j])
		v = v[i+2+j:]
	}
}

// inlineField returns the string value of key in an inline table "{ path = "../x" }".
func inlineField(v, key string) string {
	v = strings.Trim(strings.TrimSpace(v), "{}")
	for _, part := range strings.Split(v, ",") {
		k, val, ok := strings.Cut(part, "=")
		if ok && strings.TrimSpace(k) == key {
			return unquoteYAML(val)
		}
	}
	return ""
}

// discoverPython records Python projects and their local path dependencies:
// PEP 508 "name @ file:..." requirements, [tool.poetry.dependencies] and
// [tool.uv.sources] entries with a path.
func (w *Workspace) discoverPython(files, pyFiles []string) {
	type proj struct {
		rel     string
		name    string
		entries []tomlEntry
	}
	var projs []proj
	for _, rel := range files {
		b, ok := w.readFile(rel)
		if !ok {
			continue
		}
		es := parseTOMLSubset(string(b))
		name := ""
		for _, e := range es {
			if (e.table == "project" || e.table == "tool.poetry") && e.key == "name" && name == "" {
				name = unquoteYAML(e.value)
			}
		}
		if name == "" {
			continue
		}
		projs = append(projs, proj{rel, name, es})
		if !w.hasPythonIn(path.Dir(rel), pyFiles) {
			// A project whose code is in packages is answered by them.
			w.addPackage(Package{Name: name, Kind: KindPython, Dir: path.Dir(rel), Manifest: rel})
		}
	}
	manifests := make([]string, len(projs))
	for i, p := range projs {
		manifests[i] = p.rel
	}
	w.pythonPackages(pyFiles, manifests)
	for _, p := range projs {
		if q, ok := w.Package(p.name); !ok || q.Kind != KindPython {
			continue // its packages' imports are its dependencies
		}
		dir := path.Dir(p.rel)
		local := func(ref string) string {
			ref = strings.TrimPrefix(strings.TrimPrefix(ref, "file://"), "file:")
			d, ok := relJoin(dir, ref)
			if !ok {
				return ""
			}
			if q, ok := w.packageOfDir(d); ok && q.Dir == d && q.Kind == KindPython && p.name != q.Name {
				return q.Name
			}
			return ""
		}
		for _, e := range p.entries {
			switch {
			case e.table == "project" && (e.key == "dependencies"):
				for _, req := range tomlStrings(e.value) {
					if _, ref, ok := strings.Cut(req, "@"); ok {
						if to := local(strings.TrimSpace(ref)); to != "" {
							w.addDep(p.name, to, Why{File: p.rel, Line: e.line, Detail: "dependency " + req})
						}
					}
				}
			case e.table == "tool.poetry.dependencies" || e.table == "tool.uv.sources":
				if to := local(inlineField(e.value, "path")); to != "" {
					w.addDep(p.name, to, Why{File: p.rel, Line: e.line, Detail: e.table + " " + e.key + " = " + e.value})
				}
			}
		}
	}
}
