// Package proccpu reads how much CPU time a process has used, for the
// benchmarks that set a process's cost beside a baseline's.
package proccpu
