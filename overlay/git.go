package overlay

import (
	"context"

	"github.com/lspgraph/lspgraph/internal/gitcmd"
)

// runGit runs git in root and returns its standard output.
func runGit(ctx context.Context, root string, args ...string) ([]byte, error) {
	return gitcmd.Run(ctx, root, args...)
}
