package goplsshim

import (
	"bufio"
	"bytes"
	"strings"
)

// Kind is what a gopls command line does.
type Kind int

const (
	// Serve serves LSP on stdin and stdout: no subcommand or "serve",
	// without -listen and without -h. Also with -remote, where gopls
	// forwards stdio to a daemon.
	Serve Kind = iota
	// Passthrough is everything else: a subcommand, help, a daemon
	// listening on a socket (-listen), or a flag gopls would refuse.
	Passthrough
)

func (k Kind) String() string {
	if k == Serve {
		return "serve"
	}
	return "passthrough"
}

// Verdict is the classification of a command line and why.
type Verdict struct {
	Kind Kind
	// Subcommand is the subcommand named ("" when none).
	Subcommand string
	// Reason says why, for the log and for errors.
	Reason string
	// Unknown is the first flag missing from the flag table, if any; the
	// caller may learn its kind from the real gopls ([ParseHelpFlags]) and
	// classify again.
	Unknown string
}

// Flags says which gopls flags are boolean (the others take a value).
type Flags map[string]bool

// KnownFlags are gopls's flags (v0.23.0, `gopls help`), global and of
// serve: true for the boolean ones. A flag missing here is looked up in the
// real gopls's help before the command line is classified.
var KnownFlags = Flags{
	"h": true, "help": true,
	"rpc.trace": true, "v": true, "verbose": true, "vv": true, "veryverbose": true,
	"debug": false, "listen": false, "listen.timeout": false, "logfile": false,
	"mcp.listen": false, "mode": false, "otel": false,
	"profile.alloc": false, "profile.block": false, "profile.cpu": false,
	"profile.mem": false, "profile.trace": false,
	"remote": false, "remote.debug": false, "remote.listen.timeout": false, "remote.logfile": false,
}

// scanned is one stretch of flags.
type scanned struct {
	next    int    // index of the first argument after the flags
	help    bool   // -h or -help
	listen  bool   // -listen
	unknown string // the first flag not in the table
}

// scanFlags reads the flags of args from i as Go's flag package does: "--"
// ends them, a lone "-" is an argument, -name=value carries its value and a
// non-boolean -name takes the next argument.
func scanFlags(args []string, i int, fl Flags) scanned {
	var s scanned
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			i++
			break
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		name := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		name, _, hasValue := strings.Cut(name, "=")
		isBool, known := fl[name]
		switch {
		case !known:
			if s.unknown == "" {
				s.unknown = name
			}
		case name == "h" || name == "help":
			s.help = true
		case name == "listen":
			s.listen = true
		}
		if known && !isBool && !hasValue {
			i++ // the value
		}
	}
	s.next = i
	return s
}

// Classify says whether the gopls command line args (without argv[0])
// serves LSP on stdio.
func Classify(args []string, fl Flags) Verdict {
	g := scanFlags(args, 0, fl)
	if g.unknown != "" {
		return Verdict{Kind: Passthrough, Unknown: g.unknown, Reason: "flag -" + g.unknown + " is not a gopls flag lspgraph knows"}
	}
	if g.help {
		return Verdict{Kind: Passthrough, Reason: "help"}
	}
	sub := ""
	if g.next < len(args) {
		sub = args[g.next]
	}
	if sub != "" && sub != "serve" {
		return Verdict{Kind: Passthrough, Subcommand: sub, Reason: "subcommand " + sub}
	}
	listen := g.listen
	if sub == "serve" {
		s := scanFlags(args, g.next+1, fl)
		if s.unknown != "" {
			return Verdict{Kind: Passthrough, Subcommand: sub, Unknown: s.unknown, Reason: "flag -" + s.unknown + " is not a gopls flag lspgraph knows"}
		}
		if s.help {
			return Verdict{Kind: Passthrough, Subcommand: sub, Reason: "help"}
		}
		if s.next < len(args) {
			return Verdict{Kind: Passthrough, Subcommand: sub, Reason: "serve takes no arguments, got " + args[s.next]}
		}
		listen = listen || s.listen
	}
	if listen {
		return Verdict{Kind: Passthrough, Subcommand: sub, Reason: "-listen serves on a socket, not stdio"}
	}
	return Verdict{Kind: Serve, Subcommand: sub, Reason: "serves LSP on stdio"}
}

// ParseHelpFlags reads the flags section of `gopls help` (or
// `gopls serve -h`): lines "  -name=string" (a flag with a value) and
// "  -name" (boolean), where "-v,-verbose" names two.
func ParseHelpFlags(help []byte) Flags {
	fl := Flags{}
	sc := bufio.NewScanner(bytes.NewReader(help))
	for sc.Scan() {
		line := sc.Text()
		t := strings.TrimLeft(line, " \t")
		if len(t) < 2 || t[0] != '-' || len(line) == len(t) {
			continue
		}
		spec, _, _ := strings.Cut(t, " ")
		names, _, hasValue := strings.Cut(spec, "=")
		for _, n := range strings.Split(names, ",") {
			n = strings.TrimLeft(n, "-")
			if n != "" {
				fl[n] = !hasValue
			}
		}
	}
	return fl
}

// Merge returns fl with the entries of more added (more wins).
func (fl Flags) Merge(more Flags) Flags {
	out := Flags{}
	for k, v := range fl {
		out[k] = v
	}
	for k, v := range more {
		out[k] = v
	}
	return out
}
