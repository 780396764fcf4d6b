package scope

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDiscoverLinksOut: a manifest reached through a symbolic link that
// leads outside the root (here a tsconfig's extends through a directory
// link, or into a sibling named like the root plus a suffix) is not read;
// it is listed as skipped without saying where the link leads.
func TestDiscoverLinksOut(t *testing.T) {
	tests := []struct {
		name    string
		link    string // target of root/shared, relative to the root's parent
		promise string
	}{
		{"directory out", "elsewhere", "a directory link out of the root"},
		{"prefix sibling", "ws-evil", "a directory link into a prefix sibling"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			root := filepath.Join(base, "ws")
			canary := `{"compilerOptions":{"paths":{"CANARY/*":["src/*"]}}}`
			for p, text := range map[string]string{
				"ws/package.json":          `{"name":"app"}`,
				"ws/tsconfig.json":         `{"extends":"./shared/base.json"}`,
				"ws/src/index.ts":          "export const a = 1;\n",
				"elsewhere/base.json":      canary,
				"ws-evil/base.json":        canary,
				"elsewhere/package.json":   `{"name":"CANARY"}`,
				"ws-evil/package.json":     `{"name":"CANARY"}`,
				"elsewhere/src/CANARY.ts":  "export const CANARY = 1;\n",
				"ws-evil/src/CANARY.ts":    "export const CANARY = 1;\n",
				"elsewhere/tsconfig.json":  canary,
				"ws-evil/tsconfig.json":    canary,
				"elsewhere/go.mod":         "module CANARY\n",
				"ws-evil/go.mod":           "module CANARY\n",
				"elsewhere/pyproject.toml": "[project]\nname = \"CANARY\"\n",
				"ws-evil/pyproject.toml":   "[project]\nname = \"CANARY\"\n",
			} {
				full := filepath.Join(base, filepath.FromSlash(p))
				if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Symlink(filepath.Join("..", tt.link), filepath.Join(root, "shared")); err != nil {
				t.Skip(err)
			}
			w, err := Discover(root)
			if err != nil {
				t.Fatal(err)
			}
			if len(w.Packages) != 1 || w.Packages[0].Name != "app" {
				t.Errorf("packages = %+v; want only app (%s)", w.Packages, tt.promise)
			}
			skipped := strings.Join(w.Skipped, "\n")
			if !strings.Contains(skipped, "shared/base.json") {
				t.Errorf("Skipped = %q; want shared/base.json refused (%s)", w.Skipped, tt.promise)
			}
			if strings.Contains(skipped, tt.link) || strings.Contains(skipped, "CANARY") {
				t.Errorf("Skipped = %q tells where the link leads (%s)", w.Skipped, tt.promise)
			}
		})
	}
}
