package goplsshim

import (
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		args string
		want Kind
		sub  string
	}{
		{"", Serve, ""},
		{"serve", Serve, "serve"},
		{"-rpc.trace", Serve, ""},
		{"-rpc.trace serve", Serve, "serve"},
		{"-mode=stdio", Serve, ""},
		{"-mode stdio -rpc.trace", Serve, ""},
		{"-logfile /tmp/gopls.log", Serve, ""},   // the value is not a subcommand
		{"-logfile version", Serve, ""},          // even when it looks like one
		{"-remote=:37374 -rpc.trace", Serve, ""}, // a forwarder still serves stdio
		{"serve -rpc.trace -logfile=auto", Serve, "serve"},
		{"--rpc.trace -- serve", Serve, "serve"},
		{"version", Passthrough, "version"},
		{"version -json", Passthrough, "version"},
		{"-v version", Passthrough, "version"},
		{"-rpc.trace version", Passthrough, "version"},
		{"stats -anon", Passthrough, "stats"},
		{"vulncheck -- -mode=convert -show=color", Passthrough, "vulncheck"},
		{"-h", Passthrough, ""},
		{"--help", Passthrough, ""},
		{"help", Passthrough, "help"},
		{"serve -h", Passthrough, "serve"},
		{"-listen=:37374 -logfile=auto -debug=:0 serve", Passthrough, "serve"},
		{"serve -listen unix;/tmp/s", Passthrough, "serve"},
		{"serve extra", Passthrough, "serve"},
		{"-debug :0 bug", Passthrough, "bug"},
		{"-", Passthrough, "-"},
	} {
		v := Classify(strings.Fields(c.args), KnownFlags)
		if v.Kind != c.want || v.Subcommand != c.sub || v.Unknown != "" {
			t.Errorf("Classify(%q) = %+v; want %v with subcommand %q", c.args, v, c.want, c.sub)
		}
	}
}

func TestClassifyUnknownFlag(t *testing.T) {
	v := Classify([]string{"-newflag", "serve"}, KnownFlags)
	if v.Kind != Passthrough || v.Unknown != "newflag" {
		t.Fatalf("unknown flag: %+v; want passthrough naming newflag", v)
	}
	// Learned as boolean, "serve" is the subcommand; with a value, it is
	// the flag's value and gopls serves by default either way.
	for _, isBool := range []bool{true, false} {
		v = Classify([]string{"-newflag", "serve"}, KnownFlags.Merge(Flags{"newflag": isBool}))
		if v.Kind != Serve || v.Unknown != "" {
			t.Errorf("newflag boolean %v: %+v; want serve", isBool, v)
		}
	}
	v = Classify([]string{"-newflag", "version"}, KnownFlags.Merge(Flags{"newflag": false}))
	if v.Kind != Serve {
		t.Errorf("-newflag version with newflag taking a value: %+v; want serve (version is the value)", v)
	}
}

func TestParseHelpFlags(t *testing.T) {
	help := `Usage:
  gopls help [<subject>]

Command:

Main
  serve             run a server for Go code using the Language Server Protocol
  version           print the gopls version information

flags:
  -debug=string
    	serve debug information on the supplied address
  -listen.timeout=duration
    	when used with -listen, shut down the server
  -rpc.trace
    	print the full rpc trace in lsp inspector format
  -v,-verbose
    	verbose output
`
	got := ParseHelpFlags([]byte(help))
	want := Flags{"debug": false, "listen.timeout": false, "rpc.trace": true, "v": true, "verbose": true}
	if len(got) != len(want) {
		t.Fatalf("ParseHelpFlags = %v; want %v", got, want)
	}
	for k, v := range want {
		if b, ok := got[k]; !ok || b != v {
			t.Errorf("flag %s: %v, %v; want %v", k, b, ok, v)
		}
	}
}
