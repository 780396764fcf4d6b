package impact

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseUnifiedDiff(t *testing.T) {
	diff := `diff --git a/service/catalog.go b/service/catalog.go
index 1111111..2222222 100644
--- a/service/catalog.go
+++ b/service/catalog.go
@@ -30 +30,2 @@ func (c *Catalog) Save(sku, name string) error {
-	if err := c.st.Put(sku, name); err != nil {
+	name = strings.TrimSpace(name)
+	if err := c.st.Put(sku, name); err != nil {
@@ -57,0 +59,3 @@ func (c *Catalog) Lookup(sku string) (string, error) {
+// Count is new.
+func Count() int { return 0 }
+
@@ -63,3 +67,0 @@ func Describe(sku, name string) string {
-func normalizeSKU(sku string) string {
-	return strings.ToUpper(strings.TrimSpace(sku))
-}
diff --git a/store/extra.go b/store/extra.go
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/store/extra.go
@@ -0,0 +1,3 @@
+package store
+
+func Extra() {}
diff --git a/store/memstore/mem_test.go b/store/memstore/mem_test.go
deleted file mode 100644
index 4444444..0000000
--- a/store/memstore/mem_test.go
+++ /dev/null
@@ -1,2 +0,0 @@
-package memstore
-
diff --git a/store/filestore/file.go b/store/filestore/disk.go
similarity index 90%
rename from store/filestore/file.go
rename to store/filestore/disk.go
index 5555555..6666666 100644
--- a/store/filestore/file.go
+++ b/store/filestore/disk.go
@@ -22 +22 @@ func (f *File) path(key string) string {
-	return filepath.Join(f.Dir, key)
+	return filepath.Join(f.Dir, "k-"+key)
diff --git a/a.go b/b.go
similarity index 100%
rename from a.go
rename to b.go
`
	got, err := ParseUnifiedDiff(strings.NewReader(diff))
	if err != nil {
		t.Fatal(err)
	}
	want := []FileChange{
		{Status: "M", Path: "service/catalog.go", OldPath: "service/catalog.go",
			Added:   []LineRange{{30, 31}, {59, 61}, {68, 67}},
			Removed: []LineRange{{30, 30}, {58, 57}, {63, 65}}},
		{Status: "A", Path: "store/extra.go", Added: []LineRange{{1, 3}}},
		{Status: "D", OldPath: "store/memstore/mem_test.go", Removed: []LineRange{{1, 2}}},
		{Status: "R", Path: "store/filestore/disk.go", OldPath: "store/filestore/file.go", Added: []LineRange{{22, 22}}, Removed: []LineRange{{22, 22}}},
		{Status: "R", Path: "b.go", OldPath: "a.go"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%+v\nwant\n%+v", got, want)
	}
	for _, bad := range []string{"@@ -x +1 @@", "@@ -1,-2 +1 @@", "@@ -1"} {
		if _, err := ParseUnifiedDiff(strings.NewReader("diff --git a/x b/x\n" + bad + "\n")); err == nil {
			t.Errorf("malformed hunk header %q accepted", bad)
		}
	}
}

// FuzzParseUnifiedDiff checks that any input parses or fails without
// panicking, and that parsed ranges are well formed.
func FuzzParseUnifiedDiff(f *testing.F) {
	f.Add("diff --git a/x.go b/x.go\n--- a/x.go\n+++ b/x.go\n@@ -1,2 +1,3 @@\n-a\n+b\n+c\n d\n")
	f.Add("diff --git a/x b/y\nrename from x\nrename to y\n")
	f.Add("diff --git a/x b/x\n@@ -0,0 +1 @@\n+a\n")
	f.Add("@@ -1 +1 @@\n-a\n+b\n")
	f.Fuzz(func(t *testing.T, s string) {
		files, err := ParseUnifiedDiff(strings.NewReader(s))
		if err != nil {
			return
		}
		for _, fc := range files {
			for _, r := range append(append([]LineRange(nil), fc.Added...), fc.Removed...) {
				if r.End < r.Start-1 {
					t.Fatalf("malformed range %+v in %+v", r, fc)
				}
			}
		}
	})
}

// TestNewLine maps unchanged old lines through a diff: lines 14-19
// removed (a deleted function), two lines added at new 30-31 (old 35 and
// 36 replaced by new 29-31), one line inserted after old line 40 (new 36).
func TestNewLine(t *testing.T) {
	f := FileChange{Status: "M", Path: "a.go", OldPath: "a.go",
		Removed: []LineRange{{14, 19}, {35, 36}, {41, 40}},
		Added:   []LineRange{{29, 31}, {36, 36}}}
	for _, c := range []struct {
		old, new int
		ok       bool
	}{
		{1, 1, true}, {13, 13, true}, {14, 0, false}, {19, 0, false}, {20, 14, true},
		{34, 28, true}, {35, 0, false}, {37, 32, true}, {40, 35, true}, {41, 37, true},
	} {
		n, ok := f.newLine(c.old)
		if n != c.new || ok != c.ok {
			t.Errorf("newLine(%d) = %d, %v; want %d, %v", c.old, n, ok, c.new, c.ok)
		}
	}
}
