package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

var (
	nethttpSCIP = flag.String("nethttp.scip", os.Getenv("LSPGRAPH_NETHTTP_SCIP"),
		"a scip-go dump of GOROOT/src's net/http and its importers (see README): score impact against testdata/truth/nethttp.json")
	xtoolsSCIP = flag.String("xtools.scip", os.Getenv("LSPGRAPH_XTOOLS_SCIP"),
		"a scip-go dump of golang.org/x/tools@v0.52.0's go/ssa and its importers (see README): score against testdata/truth/xtools-ssa.json")
	xtoolsDir = flag.String("xtools.dir", os.Getenv("LSPGRAPH_XTOOLS_DIR"),
		"the golang.org/x/tools@v0.52.0 tree the dump was made in (default: the module cache's)")
)

// TestTruthOnFixture checks the truth's mechanics on testdata/gobreak,
// whose answers were read off `go build -gcflags=-e` by hand (see
// testdata/README.md): Square.Name's new first parameter breaks the nine
// conversion sites of use/use.go and its direct caller; Perimeter's breaks
// the method value and the direct call.
func TestTruthOnFixture(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "gobreak"))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := loadTree(context.Background(), dir, "example.com/gobreak/shape", []string{"example.com/gobreak/use"})
	if err != nil {
		t.Fatal(err)
	}
	clean, err := tr.check(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(clean.errors) > 0 {
		t.Fatalf("the fixture does not type-check: %v", clean.errors)
	}
	byName := map[string]candidate{}
	for _, cs := range tr.candidates(clean) {
		for _, c := range cs {
			byName[c.Name] = c
		}
	}
	for _, c := range []struct {
		name            string
		callers, breaks []string
		stratum         string
	}{
		{"Square.Name", []string{"use/use.go:89"}, []string{"use/use.go:14", "use/use.go:21", "use/use.go:29", "use/use.go:34",
			"use/use.go:44", "use/use.go:49", "use/use.go:59", "use/use.go:64", "use/use.go:89", "use/use.go:top"}, stratumImplMethod},
		{"Square.Size", []string{"use/use.go:89"}, []string{"use/use.go:54", "use/use.go:89"}, stratumImplMethod},
		{"Square.Perimeter", []string{"use/use.go:84", "use/use.go:89"}, []string{"use/use.go:84", "use/use.go:89"}, stratumMethodValue},
		{"Namer.Name", []string{"use/use.go:26"}, []string{"use/use.go:14", "use/use.go:21", "use/use.go:26", "use/use.go:29", "use/use.go:34",
			"use/use.go:44", "use/use.go:49", "use/use.go:59", "use/use.go:64", "use/use.go:top"}, stratumIfaceMethod},
	} {
		cd, ok := byName[c.name]
		if !ok {
			t.Errorf("%s is not a candidate", c.name)
			continue
		}
		tg, err := tr.truthOf(clean, cd)
		if err != nil {
			t.Fatal(err)
		}
		if tg.Stratum != c.stratum || !reflect.DeepEqual(tg.Callers, c.callers) || !reflect.DeepEqual(tg.Breaks, c.breaks) {
			t.Errorf("%s: %s, callers %v, breaks %v;\nwant %s, %v, %v", c.name, tg.Stratum, tg.Callers, tg.Breaks, c.stratum, c.callers, c.breaks)
		}
	}
}

// TestScore recomputes precision and recall of impact against the
// committed truths (GOROOT's net/http; golang.org/x/tools@v0.52.0's
// go/ssa), with the type checker's conversion sites, and holds them to the
// goals: callers P >= 0.97, R >= 0.99; everything that breaks P >= 0.95,
// R >= 0.95; no LOW where something breaks. Each needs its dump
// (-nethttp.scip, -xtools.scip) and the tree the truth was made from.
func TestScore(t *testing.T) {
	for _, c := range []struct {
		name, truth, dump, dir string
	}{
		{"nethttp", "nethttp.json", *nethttpSCIP, ""},
		{"xtools-ssa", "xtools-ssa.json", *xtoolsSCIP, *xtoolsDir},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.dump == "" && c.name == "nethttp" {
				c.dump = nethttpDump(t, filepath.Join("..", "..", "testdata", "truth", c.truth))
			}
			if c.dump == "" {
				t.Skipf("no dump for %s: pass -%s.scip=FILE (see README)", c.name, strings.SplitN(c.name, "-", 2)[0])
			}
			args := []string{"score", "--truth", filepath.Join("..", "..", "testdata", "truth", c.truth), "--scip", c.dump, "--go-types"}
			if c.name == "xtools-ssa" {
				dir := c.dir
				if dir == "" {
					out, err := exec.Command("go", "env", "GOMODCACHE").Output()
					if err != nil {
						t.Fatal(err)
					}
					dir = filepath.Join(strings.TrimSpace(string(out)), "golang.org", "x", "tools@v0.52.0")
				}
				args = append(args, "--dir", dir)
			}
			var out, errs bytes.Buffer
			if err := run(context.Background(), args, &out, &errs); err != nil {
				t.Fatalf("%v\n%s", err, errs.String())
			}
			t.Logf("\n%s", out.String())
			m := regexp.MustCompile(`(?m)^all\s+\d+\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)$`).FindStringSubmatch(out.String())
			if m == nil {
				t.Fatalf("no totals in\n%s", out.String())
			}
			for i, goal := range []float64{0.97, 0.99, 0.95, 0.95} {
				if v, _ := strconv.ParseFloat(m[i+1], 64); v < goal {
					t.Errorf("%s = %.2f, goal %.2f", []string{"callers P", "callers R", "breaks P", "breaks R"}[i], v, goal)
				}
			}
			if regexp.MustCompile(`(?m)risk levels: .*[^)] LOW:`).MatchString(out.String()) {
				t.Errorf("LOW where something breaks:\n%s", out.String())
			}
		})
	}
}

// nethttpDump indexes the truth's scope in GOROOT/src with scip-go into a
// temporary file, when scip-go is installed and this Go is the one the
// truth was made with; it returns "" (the test skips) otherwise, and fails
// when LSPGRAPH_E2E=1 asks for every real tool.
func nethttpDump(t *testing.T, truthFile string) string {
	t.Helper()
	e2e := os.Getenv("LSPGRAPH_E2E") == "1"
	scipGo, err := exec.LookPath("scip-go")
	if err != nil {
		if e2e {
			t.Fatalf("LSPGRAPH_E2E=1 and scip-go is not on PATH: %v", err)
		}
		return ""
	}
	data, err := os.ReadFile(truthFile)
	if err != nil {
		t.Fatal(err)
	}
	var tr struct {
		Tree  string   `json:"tree"`
		Scope []string `json:"scope"`
	}
	if err := json.Unmarshal(data, &tr); err != nil {
		t.Fatalf("%s: %v", truthFile, err)
	}
	if want := "GOROOT/src " + runtime.Version(); tr.Tree != want {
		t.Skipf("the truth was made on %q; this is %q: remake it with go run ./cmd/breaktruth truth", tr.Tree, want)
	}
	dump := filepath.Join(t.TempDir(), "nethttp.scip")
	args := []string{"index", "--quiet", "--output", dump}
	for _, p := range tr.Scope {
		args = append(args, "./"+p)
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	cmd := exec.Command(scipGo, args...)
	cmd.Dir = filepath.Join(strings.TrimSpace(string(goroot)), "src")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("scip-go %s in %s: %v\n%s", strings.Join(args, " "), cmd.Dir, err, out)
	}
	return dump
}
