// Calls the status tool of `lspgraph mcp` (no language server: it serves
// the workspace's session headless), waits for a line on standard input
// (the test starts an editor's proxy meanwhile), then calls status and
// impact again, with the official TypeScript SDK client. Usage:
//   node mcp_handover.cjs LSPGRAPH ROOT STORE TARGET
// Prints "BEFORE {json}" (status), "READY", then "RESULT {json}" (status
// and impact's structured content, impact's text).
const readline = require("readline");
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");

const [bin, root, store, target] = process.argv.slice(2);

async function main() {
  const transport = new StdioClientTransport({
    command: bin, args: ["mcp", "--root", root, "--store", store], cwd: root, stderr: "inherit",
  });
  const client = new Client({ name: "lspgraph-e2e", version: "1.0.0" });
  await client.connect(transport);
  const before = await client.callTool({ name: "status", arguments: {} });
  console.log("BEFORE " + JSON.stringify(before.structuredContent));
  console.log("READY");
  const lines = readline.createInterface({ input: process.stdin });
  await new Promise((resolve) => lines.once("line", resolve));
  lines.close();
  const res = {};
  res.status = (await client.callTool({ name: "status", arguments: {} })).structuredContent;
  const r = await client.callTool({ name: "impact", arguments: { target } });
  res.isError = r.isError === true;
  res.text = (r.content || []).filter((c) => c.type === "text").map((c) => c.text).join("");
  res.impact = r.structuredContent;
  await client.close();
  console.log("RESULT " + JSON.stringify(res));
}

main().then(() => process.exit(0), (e) => { console.log("FAIL: " + (e && e.stack || e)); process.exit(1); });
