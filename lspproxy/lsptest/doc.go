// Package lsptest holds what lspproxy's tests need to run every protocol
// scenario twice, directly and through the proxy, and compare what each
// side received.
//
// An [Endpoint] is one side's framed connection: the fake editor's or the
// scripted fake server's. A [Connector] joins the two, either directly
// ([Direct]) or through an [lspproxy.Proxy] ([Proxied]), and returns a
// [Connection]. [Equal] and [Diff] compare transcripts semantically (same
// JSON values in the same order). [FakeServer] is a language server driven
// by a small rule table, run in process or as a real subprocess (the test
// binary re-executing itself, see [MaybeRunFakeServer]).
package lsptest
