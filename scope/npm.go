package scope

import (
	"bytes"
	"encoding/json"
	"path"
	"sort"
	"strings"

	"github.com/lspgraph/lspgraph/internal/lang"
)

type packageJSON struct {
	Name                 string            `json:"name"`
	Dependencies         map[string]string `json:"dependencies"`
	DevDependencies      map[string]string `json:"devDependencies"`
	PeerDependencies     map[string]string `json:"peerDependencies"`
	OptionalDependencies map[string]string `json:"optionalDependencies"`
	Workspaces           json.RawMessage   `json:"workspaces"` // ["a/*"] or {"packages": ["a/*"]}
}

func (p packageJSON) workspaceGlobs() []string {
	if len(p.Workspaces) == 0 {
		return nil
	}
	var list []string
	if json.Unmarshal(p.Workspaces, &list) == nil {
		return list
	}
	var obj struct {
		Packages []string `json:"packages"`
	}
	if json.Unmarshal(p.Workspaces, &obj) == nil {
		return obj.Packages
	}
	return nil
}

// isTSFile reports whether a file is TypeScript or JavaScript source whose
// imports count, declaration files (.d.ts) left out.
func isTSFile(name string) bool {
	if strings.HasSuffix(name, ".d.ts") {
		return false
	}
	l := lang.Of(name)
	return l == "typescript" || l == "javascript"
}

// parsePnpmWorkspace reads the `packages:` list of a pnpm-workspace.yaml,
// the only key discovery needs. Items are "- glob" lines, quoted or not.
func parsePnpmWorkspace(src string) []string {
	var globs []string
	in := false
	for _, line := range strings.Split(src, "\n") {
		if i := strings.Index(line, "#"); i >= 0 {
			line = line[:i]
		}
		t := strings.TrimSpace(line)
		if t == "" {
			continue
		}
		if !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "\t") && !strings.HasPrefix(t, "-") {
			in = strings.HasPrefix(t, "packages:")
			if in {
				// Flow style: packages: ["a/*", "b"]
				rest := strings.TrimSpace(strings.TrimPrefix(t, "packages:"))
				if strings.HasPrefix(rest, "[") {
					for _, item := range strings.Split(strings.Trim(rest, "[]"), ",") {
						if g := unquoteYAML(item); g != "" {
							globs = append(globs, g)
						}
					}
					in = false
				}
			}
			continue
		}
		if in && strings.HasPrefix(t, "-") {
			if g := unquoteYAML(strings.TrimPrefix(t, "-")); g != "" {
				globs = append(globs, g)
			}
		}
	}
	return globs
}

func unquoteYAML(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		s = s[1 : len(s)-1]
	}
	return s
}

// globMatch matches a workspace glob ("packages/*", "apps/**") against a directory.
func globMatch(glob, dir string) bool {
	glob = strings.TrimPrefix(path.Clean(glob), "./")
	if strings.HasPrefix(glob, "!") {
		return false
	}
	if strings.HasSuffix(glob, "/**") {
		return dirContains(strings.TrimSuffix(glob, "/**"), dir)
	}
	ok, _ := path.Match(glob, dir)
	return ok
}

// jsoncClean strips // and /* */ comments and trailing commas so that a
// tsconfig.json (JSON with comments) decodes with encoding/json.
func jsoncClean(b []byte) []byte {
	var out bytes.Buffer
	inStr := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inStr {
			out.WriteByte(c)
			if c == '\\' && i+1 < len(b) {
				i++
				out.WriteByte(b[i])
			} else if c == '"' {
				inStr = false
			}
			continue
		}
		switch {
		case c == '"':
			inStr = true
			out.WriteByte(c)
		case c == '/' && i+1 < len(b) && b[i+1] == '/':
			for i < len(b) && b[i] != '\n' {
				i++
			}
			out.WriteByte('\n')
		case c == '/' && i+1 < len(b) && b[i+1] == '*':
			i += 2
			for i+1 < len(b) && !(b[i] == '*' && b[i+1] == '/') {
				i++
			}
			i++
		case c == ',':
			// Drop the comma when the next significant byte closes a container.
			j := i + 1
			for j < len(b) && (b[j] == ' ' || b[j] == '\n' || b[j] == '\t' || b[j] == '\r') {
				j++
			}
			if j < len(b) && (b[j] == '}' || b[j] == ']') {
				continue
			}
			out.WriteByte(c)
		default:
			out.WriteByte(c)
		}
	}
	return out.Bytes()
}

type tsconfig struct {
	Extends         string `json:"extends"`
	CompilerOptions struct {
		BaseURL string              `json:"baseUrl"`
		Paths   map[string][]string `json:"paths"`
	} `json:"compilerOptions"`
	References []struct {
		Path string `json:"path"`
	} `json:"references"`
}

// tsPathRule maps an import specifier pattern to root-relative directories.
type tsPathRule struct {
	pattern string   // "@shop/*"
	targets []string // "packages/*/src", root-relative
}

// discoverNPM records npm packages, their workspace membership and the
// dependencies package.json, tsconfig references and resolved imports declare.
func (w *Workspace) discoverNPM(pkgJSONs []string, pnpmWS string, tsconfigs, tsFiles []string) {
	type member struct{ glob, file string }
	var globs []member
	if pnpmWS != "" {
		if b, ok := w.readFile(pnpmWS); ok {
			for _, g := range parsePnpmWorkspace(string(b)) {
				globs = append(globs, member{g, pnpmWS})
			}
		}
	}
	parsed := map[string]packageJSON{} // manifest -> content
	for _, rel := range pkgJSONs {
		b, ok := w.readFile(rel)
		if !ok {
			continue
		}
		var pj packageJSON
		if err := json.Unmarshal(b, &pj); err != nil {
			w.Skipped = append(w.Skipped, rel+": "+err.Error())
			continue
		}
		parsed[rel] = pj
		for _, g := range pj.workspaceGlobs() {
			if d, ok := relJoin(path.Dir(rel), g); ok {
				globs = append(globs, member{d, rel + " workspaces"})
			}
		}
	}
	names := map[string]string{} // npm name -> dir
	for _, rel := range pkgJSONs {
		pj, ok := parsed[rel]
		if !ok || pj.Name == "" {
			continue
		}
		dir := path.Dir(rel)
		p := Package{Name: pj.Name, Kind: KindNPM, Dir: dir, Manifest: rel}
		for _, g := range globs {
			if globMatch(g.glob, dir) {
				p.Member = g.file
				break
			}
		}
		names[pj.Name] = dir
		w.addPackage(p)
	}
	for _, rel := range pkgJSONs {
		pj, ok := parsed[rel]
		if !ok || pj.Name == "" {
			continue
		}
		src := string(mustRead(w, rel))
		for _, group := range []struct {
			key  string
			deps map[string]string
		}{{"dependencies", pj.Dependencies}, {"devDependencies", pj.DevDependencies}, {"peerDependencies", pj.PeerDependencies}, {"optionalDependencies", pj.OptionalDependencies}} {
			for _, dep := range sortedStrings(group.deps) {
				spec := group.deps[dep]
				to := ""
				switch {
				case strings.HasPrefix(spec, "file:") || strings.HasPrefix(spec, "link:"):
					ref := spec[strings.Index(spec, ":")+1:]
					if d, ok := relJoin(path.Dir(rel), ref); ok {
						if p, ok := w.packageOfDir(d); ok && p.Dir == d {
							to = p.Name
						}
					}
				default:
					// workspace:* and plain versions both name a local package
					// when one has that name.
					if _, ok := names[dep]; ok {
						to = dep
					}
				}
				if to != "" {
					w.addDep(pj.Name, to, Why{File: rel, Line: lineOf(src, `"`+dep+`"`), Detail: group.key + " " + dep + " " + spec})
				}
			}
		}
	}
	rules := w.tsconfigs(tsconfigs)
	w.tsImports(tsFiles, names, rules)
}

func mustRead(w *Workspace, rel string) []byte {
	b, _ := w.readFile(rel)
	return b
}

// tsconfigs records tsconfig references as dependencies and returns the
// path-mapping rules of every tsconfig (following extends).
func (w *Workspace) tsconfigs(files []string) []tsPathRule {
	var rules []tsPathRule
	seenRule := map[string]bool{}
	for _, rel := range files {
		cfg, ok := w.readTSConfig(rel)
		if !ok {
			continue
		}
		from, ok := w.packageOfDir(path.Dir(rel))
		src := string(mustRead(w, rel))
		for _, ref := range cfg.References {
			d, ok2 := relJoin(path.Dir(rel), ref.Path)
			if !ok2 || !ok {
				continue
			}
			d = strings.TrimSuffix(d, "/tsconfig.json")
			if to, ok := w.packageOfDir(d); ok && to.Dir == d {
				w.addDep(from.Name, to.Name, Why{File: rel, Line: lineOf(src, ref.Path), Detail: "tsconfig reference " + ref.Path})
			}
		}
		// Path rules, from this file or the nearest config it extends.
		dir, c, depth := path.Dir(rel), cfg, 0
		for len(c.CompilerOptions.Paths) == 0 && c.Extends != "" && depth < 5 {
			ext, ok := relJoin(dir, c.Extends)
			if !ok {
				break
			}
			if !strings.HasSuffix(ext, ".json") {
				ext += ".json"
			}
			next, ok := w.readTSConfig(ext)
			if !ok {
				break
			}
			dir, c, depth = path.Dir(ext), next, depth+1
		}
		base := dir
		if c.CompilerOptions.BaseURL != "" {
			if b, ok := relJoin(dir, c.CompilerOptions.BaseURL); ok {
				base = b
			}
		}
		for _, pat := range sortedStrings(c.CompilerOptions.Paths) {
			r := tsPathRule{pattern: pat}
			for _, t := range c.CompilerOptions.Paths[pat] {
				if d, ok := relJoin(base, t); ok {
					r.targets = append(r.targets, d)
				}
			}
			key := pat + "\x00" + strings.Join(r.targets, "\x00")
			if !seenRule[key] {
				seenRule[key] = true
				rules = append(rules, r)
			}
		}
	}
	return rules
}

func (w *Workspace) readTSConfig(rel string) (tsconfig, bool) {
	b, ok := w.readFile(rel)
	if !ok {
		return tsconfig{}, false
	}
	var cfg tsconfig
	if err := json.Unmarshal(jsoncClean(b), &cfg); err != nil {
		w.Skipped = append(w.Skipped, rel+": "+err.Error())
		return tsconfig{}, false
	}
	return cfg, true
}

// tsImports records imports of a workspace package from another package's
// sources, by package name or through a tsconfig paths rule.
func (w *Workspace) tsImports(files []string, names map[string]string, rules []tsPathRule) {
	for _, rel := range files {
		from, ok := w.PackageOf(rel)
		if !ok || from.Kind != KindNPM {
			continue
		}
		specs, ok := w.tsSpecsOf(rel)
		if !ok {
			continue
		}
		for _, sp := range specs {
			spec, to := sp.spec, ""
			if strings.HasPrefix(spec, ".") {
				if d, ok := relJoin(path.Dir(rel), spec); ok {
					if p, ok := w.packageOfDir(d); ok {
						to = p.Name
					}
				}
			} else {
				to = resolveBare(spec, names, rules, w)
			}
			if to != "" && to != from.Name {
				w.addDep(from.Name, to, Why{File: rel, Line: sp.line, Detail: "imports " + spec})
			}
		}
	}
}

func resolveBare(spec string, names map[string]string, rules []tsPathRule, w *Workspace) string {
	for name := range names {
		if spec == name || strings.HasPrefix(spec, name+"/") {
			return name
		}
	}
	for _, r := range rules {
		star := ""
		switch {
		case r.pattern == spec:
		case strings.HasSuffix(r.pattern, "*") && strings.HasPrefix(spec, strings.TrimSuffix(r.pattern, "*")):
			star = strings.TrimPrefix(spec, strings.TrimSuffix(r.pattern, "*"))
		default:
			continue
		}
		for _, t := range r.targets {
			d := strings.Replace(t, "*", star, 1)
			if p, ok := w.packageOfDir(d); ok && p.Kind == KindNPM {
				return p.Name
			}
		}
	}
	return ""
}

// lineOf returns the 1-based line of the first occurrence of s in src, or 0.
func lineOf(src, s string) int {
	i := strings.Index(src, s)
	if i < 0 {
		return 0
	}
	return strings.Count(src[:i], "\n") + 1
}

func sortedStrings[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// tsImportSpecs returns the module specifiers of a TypeScript or
// JavaScript source's import, export and require statements, with their
// lines: each quoted string (closed by either quote, on one line) that
// follows `from`, `import` or `import(`, or `require(`, the keyword
// starting a word. Matches do not overlap. It scans for the keywords
// rather than running a regular expression over the whole source, which
// took most of discovering a TypeScript monorepo.
func tsImportSpecs(src string) []tsSpec {
	var out []tsSpec
	line, counted := 1, 0
	for i := 0; i < len(src); i++ {
		var kw string
		switch src[i] {
		case 'f':
			kw = "from"
		case 'i':
			kw = "import"
		case 'r':
			kw = "require"
		default:
			continue
		}
		if !strings.HasPrefix(src[i:], kw) || (i > 0 && isWordByte(src[i-1])) {
			continue
		}
		j := skipSpace(src, i+len(kw))
		switch kw {
		case "import":
			if j < len(src) && src[j] == '(' {
				j = skipSpace(src, j+1)
			}
		case "require":
			if j >= len(src) || src[j] != '(' {
				continue
			}
			j = skipSpace(src, j+1)
		}
		if j >= len(src) || (src[j] != '"' && src[j] != '\'') {
			continue
		}
		start := j + 1
		end := start
		for end < len(src) && src[end] != '"' && src[end] != '\'' && src[end] != '\n' {
			end++
		}
		if end == start || end >= len(src) || src[end] == '\n' {
			continue
		}
		line += strings.Count(src[counted:i], "\n")
		counted = i
		out = append(out, tsSpec{spec: src[start:end], line: line})
		i = end // the next match starts after this one's closing quote
	}
	return out
}

// isWordByte reports whether b is an ASCII word character ([0-9A-Za-z_]).
func isWordByte(b byte) bool {
	return b == '_' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

// skipSpace returns the index of the first byte from i on that is not
// space, tab, newline, form feed or carriage return.
func skipSpace(s string, i int) int {
	for i < len(s) {
		switch s[i] {
		case ' ', '\t', '\n', '\f', '\r':
			i++
		default:
			return i
		}
	}
	return i
}
