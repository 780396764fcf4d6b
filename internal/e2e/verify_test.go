package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// verifyReport is the part of `lspgraph verify --json` the test checks.
type verifyReport struct {
	Compared  int     `json:"compared"`
	Failed    int     `json:"failed"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	Drift     float64 `json:"drift"`
	Sources   []struct {
		Layer, Source string
		Symbols       int
	} `json:"sources"`
	Worst []worstSymbol `json:"worst"`
}

// worstSymbol is one of the worst symbols of a verify report.
type worstSymbol struct {
	Name    string   `json:"name"`
	Def     string   `json:"def"`
	Missing []string `json:"missing"`
	Extra   []string `json:"extra"`
}

// runVerify runs `lspgraph verify --json ARGS -- gopls` and returns its
// report and exit code.
func runVerify(t *testing.T, root, store, gopls string, args ...string) (verifyReport, int) {
	t.Helper()
	argv := append([]string{"verify", "--json", "--root", root, "--store", store}, args...)
	cmd := exec.Command(lspgraphBin(t), append(argv, "--", gopls)...)
	cmd.Dir = root
	var stderr []byte
	out, err := cmd.Output()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code, stderr = ee.ExitCode(), ee.Stderr
	case err != nil:
		t.Fatalf("lspgraph %v: %v", argv, err)
	}
	var rep verifyReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("lspgraph %v (exit %d): decoding %s: %v\n%s", argv, code, out, err, stderr)
	}
	t.Logf("lspgraph %v: exit %d\n%s", argv, code, out)
	return rep, code
}

// TestVerifyGoapp audits goapp's SCIP import against gopls: every sampled
// function, method and type agrees (the calls through store.Store that
// gopls counts as references of the memstore and filestore methods are
// the interface method's references in the graph, which the audit
// follows through the implements edges), so drift is 0 and the exit code
// 0. Then a caller of service.NewCatalog is written on disk, which the
// base layer does not know: `verify --layer base --max-drift 0` exits 1
// and names NewCatalog with the new site missing.
func TestVerifyGoapp(t *testing.T) {
	t.Parallel()
	gopls := goplsPath(t)
	root := fixture(t, "goapp")
	store := filepath.Join(t.TempDir(), "store")
	importSCIP(t, store, root, "goapp.scip")

	rep, code := runVerify(t, root, store, gopls)
	if code != 0 || rep.Compared == 0 || rep.Failed != 0 || rep.Precision != 1 || rep.Recall != 1 || rep.Drift != 0 || len(rep.Worst) != 0 {
		t.Fatalf("verify of the fresh import: exit %d, %+v; want exit 0, precision and recall 1, drift 0, no worst symbols", code, rep)
	}
	if len(rep.Sources) != 1 || rep.Sources[0].Layer != "base" || rep.Sources[0].Source != "scip" || rep.Sources[0].Symbols != rep.Compared {
		t.Errorf("sources %+v; want base/scip alone with all %d symbols", rep.Sources, rep.Compared)
	}

	// Appended, so no site the graph knows moves.
	main := filepath.Join(root, "cmd", "goapp", "main.go")
	text, err := os.ReadFile(main)
	if err != nil {
		t.Fatal(err)
	}
	text = append(text, "\nfunc another() *service.Catalog {\n\treturn service.NewCatalog(memstore.New())\n}\n"...)
	if err := os.WriteFile(main, text, 0o644); err != nil {
		t.Fatal(err)
	}
	newSite := "cmd/goapp/main.go:" + strconv.Itoa(bytes.Count(text, []byte("\n"))-1)

	rep, code = runVerify(t, root, store, gopls, "--layer", "base", "--max-drift", "0")
	if code != 1 || rep.Drift <= 0 {
		t.Fatalf("verify after adding a caller: exit %d, drift %v; want exit 1 and drift > 0", code, rep.Drift)
	}
	i := slices.IndexFunc(rep.Worst, func(w worstSymbol) bool { return w.Name == "NewCatalog" })
	if i < 0 || !slices.Contains(rep.Worst[i].Missing, newSite) || len(rep.Worst[i].Extra) != 0 {
		t.Fatalf("worst symbols %+v; want NewCatalog missing %s and nothing extra", rep.Worst, newSite)
	}
}
