// Package e2e holds lspgraph's end-to-end tests: a real editor (Neovim) or
// a small LSP client drives `lspgraph proxy` in front of a real language
// server (gopls, typescript-language-server, pyright) on the fixture
// projects in testdata, and the tests check that answers pass through
// unchanged, that the lspgraph.* commands answer, and that the graph holds
// what the proxy observed.
//
// The package has no code outside its tests. The lspgraph binary is built
// once per test run (see main_test.go); each test works on a copy of a
// fixture in a temporary directory. A test whose tool is missing skips,
// unless LSPGRAPH_E2E=1, when it fails.
package e2e
