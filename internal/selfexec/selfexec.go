package selfexec

import (
	"errors"
	"os"
	"strings"
)

// WithGODEBUG replaces the process with the program it runs, its
// arguments and environment the same but for GODEBUG, which takes
// setting ("name=value"). It returns only when it does not replace the
// process: GODEBUG names the setting already (the user's, or an earlier
// WithGODEBUG's: ErrSettingGiven), or the program or the system cannot be
// run again.
func WithGODEBUG(setting string) error {
	environ, ok := addGODEBUG(os.Environ(), setting)
	if !ok {
		return ErrSettingGiven
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	return execProgram(self, os.Args, environ)
}

// ErrSettingGiven reports a GODEBUG that names the setting already.
var ErrSettingGiven = errors.New("selfexec: GODEBUG names the setting already")

// addGODEBUG returns environ with setting added to its GODEBUG (made if
// there is none), or false if GODEBUG names the setting already.
func addGODEBUG(environ []string, setting string) ([]string, bool) {
	name, _, _ := strings.Cut(setting, "=")
	out := make([]string, 0, len(environ)+1)
	found := false
	for _, kv := range environ {
		value, isGODEBUG := strings.CutPrefix(kv, "GODEBUG=")
		if !isGODEBUG {
			out = append(out, kv)
			continue
		}
		for _, s := range strings.Split(value, ",") {
			if k, _, _ := strings.Cut(s, "="); strings.TrimSpace(k) == name {
				return environ, false
			}
		}
		if value != "" {
			value += ","
		}
		out = append(out, "GODEBUG="+value+setting)
		found = true
	}
	if !found {
		out = append(out, "GODEBUG="+setting)
	}
	return out, true
}
