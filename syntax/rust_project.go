package syntax

import (
	"bufio"
	"bytes"
	"strings"
)

// rustCrate is the package of the nearest Cargo.toml.
type rustCrate struct {
	dir  string // relative to root, "" for the root
	name string // the library crate's name ("-" replaced by "_"); "" without a Cargo.toml
}

// rustCrateOf returns the package of the nearest Cargo.toml with a
// [package] section (a workspace's virtual manifest is passed over).
func (p *project) rustCrateOf(dir string) rustCrate {
	if c, ok := p.cargo[dir]; ok {
		return c
	}
	var c rustCrate
	if b, ok := p.read(joinRel(dir, "Cargo.toml")); ok {
		if name := cargoCrateName(b); name != "" {
			c = rustCrate{dir: dir, name: name}
		}
	}
	if c.name == "" {
		if parent, ok := parentDir(dir); ok {
			c = p.rustCrateOf(parent)
		}
	}
	p.cargo[dir] = c
	return c
}

// cargoCrateName reads the library crate's name from a Cargo.toml: [lib]
// name if set, else [package] name, with "-" replaced by "_" as Cargo does.
// It returns "" when there is no [package] section.
func cargoCrateName(toml []byte) string {
	section, pkg, lib := "", "", ""
	sc := bufio.NewScanner(bytes.NewReader(toml))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			section = strings.TrimSpace(strings.Trim(line, "[]"))
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if !ok || strings.TrimSpace(key) != "name" {
			continue
		}
		value = strings.TrimSpace(value)
		if i := strings.IndexByte(value, '#'); i >= 0 && !strings.HasPrefix(value, `"`) {
			value = strings.TrimSpace(value[:i])
		}
		if len(value) < 2 || (value[0] != '"' && value[0] != '\'') {
			continue
		}
		value = value[1:]
		if i := strings.IndexAny(value, `"'`); i >= 0 {
			value = value[:i]
		}
		switch section {
		case "package":
			pkg = value
		case "lib":
			lib = value
		}
	}
	if pkg == "" {
		return ""
	}
	if lib != "" {
		pkg = lib
	}
	return strings.ReplaceAll(pkg, "-", "_")
}

// rustModule returns the crate and the module path ("shop::orders::line")
// of a .rs file. The crate is the nearest Cargo.toml's library crate
// ("crate" without one); the module path follows the file's path under
// src/ (lib.rs and main.rs are the crate root, a.rs and a/mod.rs are a,
// a/b.rs is a::b). Under src/bin/, tests/, benches/ and examples/, each
// X.rs (or X/main.rs, X/mod.rs) is the root of a crate of its own named X,
// and X/y.rs is its module X::y. #[path] attributes are not followed.
func (p *project) rustModule(file string) (crate, module string) {
	c := p.rustCrateOf(dirOf(file))
	crate = c.name
	if crate == "" {
		crate = "crate"
	}
	rel := strings.TrimSuffix(file, ".rs")
	if c.dir != "" {
		rel = strings.TrimPrefix(rel, c.dir+"/")
	}
	parts := strings.Split(rel, "/")
	own := false // the file is in a crate of its own (a binary, test, bench or example)
	switch {
	case len(parts) >= 3 && parts[0] == "src" && parts[1] == "bin":
		crate, parts, own = parts[2], parts[3:], true
	case len(parts) >= 2 && (parts[0] == "tests" || parts[0] == "benches" || parts[0] == "examples"):
		crate, parts, own = parts[1], parts[2:], true
	case len(parts) >= 2 && parts[0] == "src":
		parts = parts[1:]
		if len(parts) == 1 && (parts[0] == "lib" || parts[0] == "main") {
			parts = nil
		}
	}
	crate = strings.ReplaceAll(crate, "-", "_")
	if n := len(parts); n > 0 && (parts[n-1] == "mod" || (own && n == 1 && parts[0] == "main")) {
		parts = parts[:n-1]
	}
	return crate, strings.Join(append([]string{crate}, parts...), "::")
}
