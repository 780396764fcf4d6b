package lspproxy

import (
	"context"
	"io"
	"os/exec"
)

// RunCopier starts the language server server and only moves frames
// between editor (its input and output) and the server's stdio until the
// server exits, the way the proxy does but observing nothing: the floor
// any process between an editor and a server costs, which the proxy
// benchmark compares the proxy with. The server's stderr goes to stderr.
// It returns how the server exited.
func RunCopier(ctx context.Context, server []string, editorIn io.Reader, editorOut, stderr io.Writer) error {
	cmd := exec.CommandContext(ctx, server[0], server[1:]...)
	cmd.Stderr = stderr
	// The server's pipes and the editor's end as the proxy has them (see
	// StartServer, PollableInput and PollableOutput).
	proc, err := StartServer(cmd)
	if err != nil {
		return err
	}
	stdin, restoreIn := PollableInput(editorIn)
	defer restoreIn()
	stdout, restoreOut := PollableOutput(editorOut)
	defer restoreOut()
	go func() {
		CopyFrames(proc, stdin)
		proc.CloseInput() // the editor left: so does the server's input
	}()
	// The server's output ends when it exits.
	CopyFrames(stdout, proc)
	return proc.Wait(ctx)
}
