package main

import (
	"errors"
	"os"
	"strings"
)

// relaunch replaces the process with the program it runs, its arguments
// and environment the same but for GODEBUG, which takes setting
// ("name=value"): some runtime settings (madvdontneed) are read once, at
// start. It returns only when it does not replace the process: GODEBUG
// names the setting already (the user's, or a relaunch's), or the
// program or the system cannot be run again.
func relaunch(setting string) error {
	environ, ok := withGODEBUG(os.Environ(), setting)
	if !ok {
		return errSettingGiven
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	return execProgram(self, os.Args, environ)
}

// errSettingGiven reports a GODEBUG that names the setting already.
var errSettingGiven = errors.New("GODEBUG names the setting already")

// withGODEBUG returns environ with setting added to its GODEBUG (made if
// there is none), or false if GODEBUG names the setting already.
func withGODEBUG(environ []string, setting string) ([]string, bool) {
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

// isDir reports whether path is a directory (a store that exists).
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
