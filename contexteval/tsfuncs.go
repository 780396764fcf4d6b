package contexteval

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

//go:embed tsfuncs.js
var tsFuncsScript []byte

// TSFuncs finds TypeScript functions with the TypeScript compiler API, run
// by node (tsfuncs.js): top-level functions and function-valued variables
// by name, class members as "Class.member".
type TSFuncs struct {
	// NodeModules is a node_modules directory holding typescript; "" asks
	// `npm root -g`.
	NodeModules string
}

// Pathspecs implements Parser.
func (TSFuncs) Pathspecs() []string { return []string{"*.ts", "*.tsx"} }

// Funcs implements Parser: one node process for all the sources.
func (p TSFuncs) Funcs(ctx context.Context, srcs []Source) ([][]Func, error) {
	if len(srcs) == 0 {
		return nil, nil
	}
	mods := p.NodeModules
	if mods == "" {
		out, err := exec.CommandContext(ctx, "npm", "root", "-g").Output()
		if err != nil {
			return nil, fmt.Errorf("contexteval: locating the global node_modules (npm root -g): %w", err)
		}
		mods = strings.TrimSpace(string(out))
	}
	if _, err := os.Stat(filepath.Join(mods, "typescript")); err != nil {
		return nil, fmt.Errorf("contexteval: typescript is not installed in %s (npm install -g typescript): %w", mods, err)
	}
	dir, err := os.MkdirTemp("", "contexteval-ts-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	type entry struct {
		Path string `json:"path"`
		File string `json:"file"`
	}
	manifest := make([]entry, len(srcs))
	for i, s := range srcs {
		f := filepath.Join(dir, fmt.Sprintf("%d%s", i, filepath.Ext(s.Path)))
		if err := os.WriteFile(f, s.Text, 0o600); err != nil {
			return nil, err
		}
		manifest[i] = entry{s.Path, f}
	}
	mf := filepath.Join(dir, "manifest.json")
	b, _ := json.Marshal(manifest)
	if err := os.WriteFile(mf, b, 0o600); err != nil {
		return nil, err
	}
	script := filepath.Join(dir, "tsfuncs.js")
	if err := os.WriteFile(script, tsFuncsScript, 0o600); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, "node", script, mf)
	cmd.Env = append(os.Environ(), "NODE_PATH="+mods)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("contexteval: node tsfuncs.js: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	var got [][]Func
	var raw [][]struct {
		Name     string `json:"name"`
		From, To int
	}
	if err := json.Unmarshal(out, &raw); err != nil {
		return nil, fmt.Errorf("contexteval: reading tsfuncs.js output: %w", err)
	}
	if len(raw) != len(srcs) {
		return nil, fmt.Errorf("contexteval: tsfuncs.js answered for %d of %d files", len(raw), len(srcs))
	}
	for _, fs := range raw {
		var row []Func
		for _, f := range fs {
			row = append(row, Func{Name: f.Name, From: f.From, To: f.To})
		}
		got = append(got, row)
	}
	return got, nil
}
