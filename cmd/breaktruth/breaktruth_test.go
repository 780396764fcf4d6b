package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"testing"
)

var nethttpSCIP = flag.String("nethttp.scip", os.Getenv("LSPGRAPH_NETHTTP_SCIP"),
	"a scip-go dump of GOROOT/src's net/http and its importers (see README): score impact against testdata/truth/nethttp.json")

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

// TestScoreNetHTTP recomputes precision and recall of impact against the
// committed truth for GOROOT's net/http, with the type checker's
// conversion sites, and holds them to the goals: callers P >= 0.97,
// R >= 0.99; everything that breaks P >= 0.95, R >= 0.95; no LOW where
// something breaks. It needs the dump (-nethttp.scip or
// LSPGRAPH_NETHTTP_SCIP) and the GOROOT the truth was made from.
func TestScoreNetHTTP(t *testing.T) {
	if *nethttpSCIP == "" {
		t.Skip("no net/http dump: pass -nethttp.scip=FILE (see README)")
	}
	var out, errs bytes.Buffer
	err := run(context.Background(), []string{"score", "--truth", filepath.Join("..", "..", "testdata", "truth", "nethttp.json"),
		"--scip", *nethttpSCIP, "--go-types"}, &out, &errs)
	if err != nil {
		t.Fatalf("%v\n%s", err, errs.String())
	}
	t.Logf("\n%s", out.String())
	m := regexp.MustCompile(`(?m)^all\s+\d+\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)$`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no totals in\n%s", out.String())
	}
	var v [4]float64
	for i := range v {
		v[i], _ = strconv.ParseFloat(m[i+1], 64)
	}
	for i, goal := range []float64{0.97, 0.99, 0.95, 0.95} {
		if v[i] < goal {
			t.Errorf("%s = %.2f, goal %.2f", []string{"callers P", "callers R", "breaks P", "breaks R"}[i], v[i], goal)
		}
	}
	if regexp.MustCompile(`(?m)risk levels: .*[^)] LOW:`).MatchString(out.String()) {
		t.Errorf("LOW where something breaks:\n%s", out.String())
	}
}
