package main

import (
	"context"
	"fmt"
)

func runStatus(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "status", "status [--store DIR] [--root DIR] [--json]")
	if err := fs.Parse(args); err != nil {
		return err
	}
	return fmt.Errorf("not implemented yet")
}
