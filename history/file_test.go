package history

import (
	"context"
	"crypto/sha256"
	"reflect"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/internal/cachefile"
)

// TestLogFileRoundTrip: a log read back from its file answers as the log
// read from git, its hunks included (CoupledFuncs runs no git: the
// decoded log has no work tree's git to run once its directory is gone);
// Holds tells its commit, directory and options; a file cut short or
// changed anywhere is refused.
func TestLogFileRoundTrip(t *testing.T) {
	a := func(get, put int) string {
		return goFile("DB", map[string]int{"Get": get, "Put": put}, "Get", "Put")
	}
	b := func(enc, dec int) string {
		return goFile("", map[string]int{"encode": enc, "decode": dec}, "encode", "decode")
	}
	dir := goRepo(t, []map[string]string{
		{"a.go": a(0, 0), "b.go": b(0, 0), "c.go": b(0, 0)},
		{"a.go": a(1, 0), "b.go": b(1, 0)},
		{"a.go": a(2, 0), "b.go": b(2, 0), "c.go": b(1, 0)},
		{"a.go": a(2, 1), "c.go": b(1, 1)},
	})
	ctx := context.Background()
	l, err := Load(ctx, dir, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := l.CoupledFuncs(ctx, "a.go", "DB.Get", 10)
	if err != nil || len(want) == 0 {
		t.Fatalf("CoupledFuncs = %v, %v", want, err)
	}
	if l.HunkCommits() == 0 {
		t.Fatal("CoupledFuncs read no hunks")
	}
	enc := l.Encode()
	d, err := Decode(enc)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Holds(l.Commit, dir, Options{}) || d.Holds(l.Commit, dir+"x", Options{}) ||
		d.Holds(strings.Repeat("0", 40), dir, Options{}) || d.Holds(l.Commit, dir, Options{HalfLife: 7}) {
		t.Error("Holds does not tell the log's commit, directory and options")
	}
	if d.Commits != l.Commits || d.HunkCommits() != l.HunkCommits() {
		t.Errorf("decoded: %d commits, %d with hunks; want %d, %d", d.Commits, d.HunkCommits(), l.Commits, l.HunkCommits())
	}
	for _, f := range []string{"a.go", "b.go", "c.go"} {
		if g, w := d.Coupled(f, 0), l.Coupled(f, 0); !reflect.DeepEqual(g, w) || len(w) == 0 {
			t.Errorf("Coupled(%s): decoded %+v, read %+v", f, g, w)
		}
	}
	if again := d.Encode(); string(again) != string(enc) {
		t.Error("encoding the decoded log gives other bytes")
	}
	d.dir = "/nonexistent" // any hunk not in the file would fail to be read
	got, err := d.CoupledFuncs(ctx, "a.go", "DB.Get", 10)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("decoded CoupledFuncs = %+v, %v; want %+v", got, err, want)
	}

	for _, c := range []struct {
		name string
		b    []byte
		msg  string
	}{
		{"empty", nil, "not a history file"},
		{"cut short", enc[:len(enc)/2], "damaged"},
		{"a byte changed", flip(enc, len(enc)/3), "damaged"},
		{"another version", flip(enc, len(logFileMagic)), "version"},
	} {
		if _, err := Decode(c.b); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: Decode error %v, want one saying %q", c.name, err, c.msg)
		}
	}
}

// flip returns a copy of b with byte i changed.
func flip(b []byte, i int) []byte {
	c := append([]byte(nil), b...)
	c[i] ^= 0x55
	return c
}

// FuzzDecode: no body makes Decode panic (the fuzzer's bodies are sealed
// with their checksum, so that it reaches past it), and a log it accepts
// answers.
func FuzzDecode(f *testing.F) {
	l := parse(strings.Repeat("ab", 20), "sub/", []byte("\x00h1\nsub/a.go\nsub/b.go\n\x00h2\nsub/a.go\nother.go\n"), Options{}.withDefaults())
	l.hunks = map[string]map[string][]string{"h1": {"a.go": {"F", "T.M"}}, "h2": {}}
	head := len(logFileMagic) + 1
	enc := l.Encode()
	f.Add(enc[head : len(enc)-sha256.Size])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, body []byte) {
		b := cachefile.Seal(append(cachefile.Start(logFileMagic, logFileVersion), body...))
		d, err := Decode(b)
		if err != nil {
			return
		}
		for _, p := range d.files {
			d.Coupled(p, 3)
		}
	})
}
