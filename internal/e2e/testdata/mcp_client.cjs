// Drives `lspgraph mcp` over stdio with the official TypeScript SDK client
// and checks its answers. Usage:
//   node mcp_client.cjs LSPGRAPH ROOT STORE
// Prints one line per check; exits 1 when any failed.
const fs = require("fs");
const path = require("path");
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { McpError, ErrorCode } = require("@modelcontextprotocol/sdk/types.js");

const [bin, root, store] = process.argv.slice(2);
let failed = 0;
function check(ok, what, detail) {
  console.log(`${ok ? "ok" : "FAIL"}: ${what}${ok || detail === undefined ? "" : "\n" + detail}`);
  if (!ok) failed++;
}
const text = (r) => (r.content || []).filter((c) => c.type === "text").map((c) => c.text).join("");
const tokens = (r) => Math.ceil((Buffer.byteLength(text(r)) + Buffer.byteLength(JSON.stringify(r.structuredContent ?? null))) / 4);

async function connect(extra) {
  const transport = new StdioClientTransport({
    command: bin, args: ["mcp", "--root", root, "--store", store, ...extra], cwd: root, stderr: "inherit",
  });
  const client = new Client({ name: "lspgraph-e2e", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

async function invalid(client, name, args, what) {
  try {
    const r = await client.callTool({ name, arguments: args });
    check(false, what, `answered ${JSON.stringify(r).slice(0, 500)}`);
  } catch (e) {
    check(e instanceof McpError && e.code === ErrorCode.InvalidParams, what, String(e));
  }
}

async function main() {
  const client = await connect([]);
  const info = client.getServerVersion();
  check(info && info.name === "lspgraph", "initialize names the server", JSON.stringify(info));

  const { tools } = await client.listTools();
  const want = {
    status: ["root"],
    symbols: ["query", "kind", "limit", "root"],
    impact: ["target", "depth", "direction", "include_tests", "min_confidence", "root"],
    context: ["target", "budget", "scope", "root"],
    changes: ["base", "staged", "root"],
    search: ["query", "limit", "scope", "from", "root"],
  };
  check(tools.map((t) => t.name).sort().join(",") === Object.keys(want).sort().join(","), "tools/list names the six tools", tools.map((t) => t.name).join(","));
  for (const t of tools) {
    const props = Object.keys((t.inputSchema && t.inputSchema.properties) || {}).sort();
    check(t.inputSchema && t.inputSchema.type === "object" && props.join(",") === (want[t.name] || []).slice().sort().join(","), `${t.name}: inputSchema has its arguments`, JSON.stringify(t.inputSchema));
    check(t.outputSchema && t.outputSchema.type === "object", `${t.name}: has an outputSchema`, JSON.stringify(t.outputSchema));
    check(typeof t.description === "string" && t.description.length > 40, `${t.name}: has a description`);
  }
  const impactSchema = tools.find((t) => t.name === "impact").inputSchema;
  check(impactSchema.properties.depth.maximum === 3 && JSON.stringify(impactSchema.properties.direction.enum) === '["upstream","downstream"]', "impact: depth and direction are bounded in the schema", JSON.stringify(impactSchema));

  // Every tool on the fixture. The client validates structuredContent
  // against each tool's outputSchema.
  const calls = [
    ["status", {}, ["**Freshness:**", "scip-go"]],
    ["symbols", { query: "Catalog.S" }, ["`Catalog.Save` method", "target: `Catalog.Save`"]],
    ["impact", { target: "Catalog.Save" }, ["## Impact of `Catalog.Save`", "d=1 will break", "Risk **"]],
    ["impact", { target: "Catalog.Save", depth: 1, direction: "downstream", include_tests: false, min_confidence: 0.9, root }, ["## Dependencies of"]],
    ["context", { target: "Catalog.Save", budget: 2000, scope: "closure" }, ["## Context for `Catalog.Save`", "```go"]],
    ["search", { query: "catalog save", limit: 5 }, ["service/catalog.go"]],
  ];
  for (const [name, args, wants] of calls) {
    const r = await client.callTool({ name, arguments: args });
    const t = text(r);
    check(!r.isError, `${name} ${JSON.stringify(args)}: answered`, t);
    for (const w of wants) check(t.includes(w), `${name}: text has ${JSON.stringify(w)}`, t);
    const sc = r.structuredContent || {};
    check(sc.freshness && typeof sc.freshness.baseCommit === "string" && sc.freshness.baseCommit !== "" && typeof sc.freshness.partial === "boolean", `${name}: structured content carries the freshness block`, JSON.stringify(sc).slice(0, 800));
    check(tokens(r) <= 8000, `${name}: within the default cap`, `${tokens(r)} tokens`);
  }
  {
    const r = await client.callTool({ name: "impact", arguments: { target: "Catalog.Save" } });
    const d1 = r.structuredContent.depths[0];
    check(d1.depth === 1 && d1.count > 0 && d1.dependents.some((d) => d.name === "Catalog.Import"), "impact: d=1 lists Catalog.Import", JSON.stringify(d1));
  }

  // changes: a function added to the work tree after the base.
  fs.appendFileSync(path.join(root, "service", "catalog.go"), "\n// Extra is new.\nfunc Extra() int { return 1 }\n");
  {
    const r = await client.callTool({ name: "changes", arguments: {} });
    const t = text(r);
    check(!r.isError && t.includes("service/catalog.go") && t.includes("Extra"), "changes: names the changed file and the added function", t);
    check(r.structuredContent && r.structuredContent.freshness && r.structuredContent.freshness.changed >= 1, "changes: freshness counts the changed document", JSON.stringify(r.structuredContent && r.structuredContent.freshness));
  }

  // An unknown target is a tool error with candidates.
  {
    const r = await client.callTool({ name: "impact", arguments: { target: "Catalog.Sav" } });
    check(r.isError === true && text(r).includes("Candidates") && text(r).includes("target: `Catalog.Save`"), "impact of an unknown target: a tool error listing candidates", text(r));
  }
  // Bad arguments are invalid params.
  await invalid(client, "impact", { target: "Catalog.Save", depth: 7 }, "impact depth 7: invalid params");
  await invalid(client, "impact", { target: "Catalog.Save", direction: "sideways" }, "impact direction sideways: invalid params");
  await invalid(client, "impact", { target: "" }, "impact with an empty target: invalid params");
  await invalid(client, "context", { target: "Catalog.Save", scope: "galaxy" }, "context scope galaxy: invalid params");
  await invalid(client, "symbols", {}, "symbols without a query: invalid params");

  // A cancelled call rejects, and the server answers the next one.
  {
    const ac = new AbortController();
    const p = client.callTool({ name: "impact", arguments: { target: "store.Store" } }, undefined, { signal: ac.signal });
    ac.abort();
    let rejected = false;
    try { await p; } catch (e) { rejected = true; }
    check(rejected, "a cancelled call rejects");
    const r = await client.callTool({ name: "status", arguments: {} });
    check(!r.isError, "the server answers after a cancelled call", text(r));
  }
  await client.close();

  // The size cap: a tiny --max-tokens makes impact say what it left out.
  const small = await connect(["--max-tokens", "1000"]);
  {
    const r = await small.callTool({ name: "impact", arguments: { target: "store.Store" } });
    const t = text(r);
    check(!r.isError && tokens(r) <= 1000, "capped impact: within 1000 tokens", `${tokens(r)} tokens\n${t}`);
    check(t.includes("Left out") && t.includes("To narrow") && (r.structuredContent.omitted || []).length > 0, "capped impact: says what was left out and how to narrow", t);
    check(r.structuredContent.depths.length === 3 && r.structuredContent.depths.every((d) => typeof d.count === "number"), "capped impact: keeps the counts of every depth", JSON.stringify(r.structuredContent.depths));
  }
  await small.close();
}

main().then(
  () => { console.log(failed ? `${failed} checks failed` : "all checks passed"); process.exit(failed ? 1 : 0); },
  (e) => { console.log("FAIL: " + (e && e.stack || e)); process.exit(1); },
);
