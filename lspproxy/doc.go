// Package lspproxy sits between an editor and a language server and
// forwards every message both ways, unchanged except as noted below.
//
// Its principal type is [Proxy]: [Proxy.Serve] forwards between two
// connections and [Proxy.ServeProcess] also owns a server started with
// [StartServer]. Messages travel as the bytes they arrived as; the proxy
// reads only the envelope (method, id) to route them. It changes exactly
// two things: the initialize result, whose
// capabilities.executeCommandProvider.commands gains the proxy's command
// names (merged with the server's), and workspace/executeCommand calls
// whose command starts with [CommandPrefix], which it answers from the
// injected [Config.Commands] table ([CommandFunc]) instead of forwarding.
//
// With [Config.Lenses] set it also adds code lenses: the server's
// textDocument/codeLens answer gets the proxy's lenses appended (tagged
// data.lspgraph): those computed within [Config.LensBudget], or at once
// the lenses last computed for the same text of the document, or none; a
// server without codeLensProvider gets one advertised and the proxy
// answers textDocument/codeLens itself; codeLens/resolve of the proxy's
// lenses is answered with the lens unchanged. Lenses that miss the budget
// are computed anyway and cached; when they differ from what the editor
// got and the editor advertised workspace.codeLens.refreshSupport, the
// proxy sends it workspace/codeLens/refresh (in its own id space; the
// editor's answer is dropped), so its next request gets them.
//
// The proxy reaches the server on its own behalf through [Requester]
// (implemented by [Proxy]), with string ids in a namespace editors are
// refused. What passes by — observed requests and their answers as
// [Exchange], text document notifications as [DocumentEvent], the
// negotiated [Session] — goes to an [Observer] through a bounded queue:
// forwarding never waits for it, and when the queue is full observations
// are dropped and counted ([Stats]). A document whose notification was
// dropped is marked: the next [DocumentEvent] delivered for it carries
// [DocumentEvent.Gap], so whoever follows its text through incremental
// changes knows its copy is out of step; when the editor sends no other
// notification of the document, an event of [MethodDocumentGap] says so
// once the queue has room.
//
// Framing is the LSP base protocol, implemented here rather than with
// go.lsp.dev/jsonrpc2's Stream, which re-encodes every message: it keeps
// numeric ids as int32 (larger ids fail to decode), writes "params": null
// for requests that had none, and decodes and re-marshals params and
// results. Here the body is forwarded as received: each side's frames are
// read into a buffer that side reuses, with room in front for the header,
// and written on from it in one write (header "Content-Length: N" only);
// what outlives the frame is copied — a request's id, the params and
// result of observed exchanges, document notifications' params for the
// Observer, and whole requests the proxy works on itself
// (workspace/executeCommand, initialize, the code lens requests).
//
// A frame is read only as far as its routing needs before it is
// forwarded. An editor request the proxy has no part in is forwarded once
// its method and id are read; the rest of it is read after, when it is
// registered as pending and its params copied for the Observer (an answer
// that comes back before that is routed by the editor loop once it is
// pending). The head of a request written as VS Code's, eglot's or
// Neovim's clients write one is read by comparing its first bytes, with
// the member scan for anything else. An answer from the server is routed
// by its id — read backwards from the end of the message when it follows
// the result, as gopls writes it — and forwarded without its result being
// read, once its request is claimed from the pending table (for numeric
// ids counting up, a slot emptied by one compare-and-swap, the rest of
// the bookkeeping done after it is forwarded); an observed answer is
// copied whole after it is forwarded and read on the observer's
// goroutine. Everything else (notifications, the requests the
// proxy works on, the answers it rewrites or consumes) is read whole
// first.
//
// Malformed input: a frame whose header cannot be delimited (no or bad
// Content-Length) ends that side, since the stream cannot be resynchronised:
// from the editor the session shuts down; from the server it is treated as
// a server failure. A well-delimited frame whose body is not a JSON-RPC
// message is logged and skipped — unless what routing reads of it was
// sound and it was forwarded: then it is counted and logged, and not
// observed. If the server ends before the editor sent
// exit, every pending editor request is answered with an error, the editor
// gets window/showMessage naming the server and its exit status, and Serve
// returns an error wrapping [ErrServerExited].
//
// Unanswered requests: the proxy never makes up a result for a request the
// server holds, except shutdown. A request the editor cancelled is answered
// with the error RequestCancelled after [Config.CancelGrace]. A shutdown the
// server has not answered after [Config.ShutdownTimeout] is answered with a
// null result, as a server would, so the editor can go on to exit; the
// server is then stopped (input closed, killed after [Config.ExitTimeout]),
// requests it still held get errors, later ones are refused, and the
// editor's exit ends Serve without error. Either way the server's late
// answer is dropped, so the editor never sees two answers to one request.
//
// The package imports nothing of lspgraph but internal/textpos; the graph is
// reached only through the injected Observer and command table.
package lspproxy
