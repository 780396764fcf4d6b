// Calls the impact tool of `lspgraph mcp` once with the official TypeScript
// SDK client, counting the workspace's gopls processes before, during and
// after the call, and once `lspgraph mcp` has exited. Usage:
//   node mcp_impact.cjs LSPGRAPH ROOT STORE TARGET [MCP ARGS...]
// (MCP ARGS, such as `-- gopls`, are passed on to `lspgraph mcp`.)
// Prints one line "RESULT {json}": the status and impact tools' structured
// content and the gopls counts.
const fs = require("fs");
const path = require("path");
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");

const [bin, root, store, target, ...extra] = process.argv.slice(2);
const realRoot = fs.realpathSync(root);

// gopls lists the processes whose executable is named gopls, with their
// parent's command line and whether they run in the workspace root.
function gopls() {
  const out = [];
  for (const pid of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    let argv, stat, cwd = "";
    try {
      argv = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch (e) { continue; }
    if (path.basename(argv[0] || "") !== "gopls") continue;
    try { cwd = fs.realpathSync(`/proc/${pid}/cwd`); } catch (e) {}
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    let parent = "";
    try { parent = fs.readFileSync(`/proc/${ppid}/cmdline`, "utf8").split("\0").filter(Boolean).join(" "); } catch (e) {}
    // gopls starts helpers of its own (its crash monitor re-runs the
    // binary): a gopls under a gopls is not another language server.
    if (path.basename(parent.split(" ")[0] || "") === "gopls") continue;
    out.push({ pid: Number(pid), ppid, parent, workspace: cwd === realRoot });
  }
  return out;
}
const inWorkspace = (ps) => ps.filter((p) => p.workspace).length;

async function main() {
  const res = { before: gopls() };
  const transport = new StdioClientTransport({
    command: bin, args: ["mcp", "--root", root, "--store", store, ...extra], cwd: root, stderr: "pipe",
  });
  const client = new Client({ name: "lspgraph-e2e", version: "1.0.0" });
  await client.connect(transport);
  res.connected = gopls();
  const status = await client.callTool({ name: "status", arguments: {} });
  res.status = status.structuredContent;
  // Sample while the call runs.
  let most = 0;
  const timer = setInterval(() => { most = Math.max(most, inWorkspace(gopls())); }, 2);
  const t0 = process.hrtime.bigint();
  const r = await client.callTool({ name: "impact", arguments: { target } });
  res.ms = Number(process.hrtime.bigint() - t0) / 1e6;
  clearInterval(timer);
  res.during = Math.max(most, inWorkspace(gopls()));
  res.after = gopls();
  res.isError = r.isError === true;
  res.text = (r.content || []).filter((c) => c.type === "text").map((c) => c.text).join("");
  res.impact = r.structuredContent;
  await client.close();
  // The server `lspgraph mcp` started, if any, goes with it.
  const deadline = Date.now() + 10000;
  while (inWorkspace(gopls()) > inWorkspace(res.before) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  res.exited = gopls();
  console.log("RESULT " + JSON.stringify(res));
}

main().then(() => process.exit(0), (e) => { console.log("FAIL: " + (e && e.stack || e)); process.exit(1); });
