// Drives `lspgraph mcp` over stdio with the official TypeScript SDK client
// on the tsworkspace fixture (its scip-typescript dump imported) and checks
// that every tool answers with the fixture's TypeScript symbols. Usage:
//   node mcp_ts_client.cjs LSPGRAPH ROOT STORE
// Prints one line per check; exits 1 when any failed.
const fs = require("fs");
const path = require("path");
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");

const [bin, root, store] = process.argv.slice(2);
let failed = 0;
function check(ok, what, detail) {
  console.log(`${ok ? "ok" : "FAIL"}: ${what}${ok || detail === undefined ? "" : "\n" + detail}`);
  if (!ok) failed++;
}
const text = (r) => (r.content || []).filter((c) => c.type === "text").map((c) => c.text).join("");
const names = (d) => (d ? d.dependents.map((x) => x.name).sort() : []);

async function call(client, name, args) {
  const r = await client.callTool({ name, arguments: args });
  const t = text(r);
  check(!r.isError, `${name} ${JSON.stringify(args)}: answered`, t);
  const sc = r.structuredContent || {};
  check(sc.freshness && String(sc.freshness.baseTool).startsWith("scip-typescript ") && typeof sc.freshness.partial === "boolean", `${name}: freshness names the scip-typescript base`, JSON.stringify(sc.freshness));
  return [r, t, sc];
}

async function main() {
  const transport = new StdioClientTransport({
    command: bin, args: ["mcp", "--root", root, "--store", store], cwd: root, stderr: "inherit",
  });
  const client = new Client({ name: "lspgraph-e2e-ts", version: "1.0.0" });
  await client.connect(transport);

  {
    const [, t] = await call(client, "status", {});
    check(t.includes("scip-typescript"), "status: names the base layer's tool", t);
  }
  {
    // Two functions named quote: pricing's and user's look-alike.
    const [, t] = await call(client, "symbols", { query: "quote" });
    check(t.includes("packages/pricing/src/index.ts:7") && t.includes("packages/user/src/index.ts:8"), "symbols quote: lists pricing's and user's quote", t);
    const [, t2] = await call(client, "symbols", { query: "Order.l" });
    check(t2.includes("`Order.linePrice`") && t2.includes("packages/order/src/index.ts:28"), "symbols Order.l: lists Order.linePrice", t2);
  }
  {
    // linePrice ← subtotal (index.ts:34) ← total (:39) ← checkout (:49) and the test (order.test.ts:13).
    const [, t, sc] = await call(client, "impact", { target: "Order.linePrice" });
    check(t.includes("## Impact of `Order.linePrice`"), "impact: names the target", t);
    const d = sc.depths || [];
    check(JSON.stringify(names(d[0])) === '["Order.subtotal"]', "impact: d=1 is Order.subtotal", JSON.stringify(d[0]));
    check(JSON.stringify(names(d[1])) === '["Order.total"]', "impact: d=2 is Order.total", JSON.stringify(d[1]));
    check(d[2] && d[2].dependents.some((x) => x.name === "checkout") && d[2].dependents.some((x) => x.test === true && x.location.startsWith("packages/order/src/order.test.ts:13:")), "impact: d=3 has checkout and the test file's call at order.test.ts:13", JSON.stringify(d[2]));
  }
  {
    // Across packages: pricing's quote is called by Order.linePrice (order/src/index.ts:29).
    const [, , sc] = await call(client, "impact", { target: "packages/pricing/src/index.ts:7:17", depth: 1 });
    const d = sc.depths || [];
    check(d.length === 1 && JSON.stringify(names(d[0])) === '["Order.linePrice"]', "impact of pricing's quote by position: d=1 is Order.linePrice in @shop/order", JSON.stringify(d));
    const [, t2, sc2] = await call(client, "impact", { target: "Order.subtotal", direction: "downstream", depth: 1 });
    check(t2.includes("## Dependencies of") && names((sc2.depths || [])[0]).includes("Order.linePrice"), "impact downstream of Order.subtotal: depends on Order.linePrice", t2);
  }
  {
    const r = await client.callTool({ name: "impact", arguments: { target: "quote" } });
    check(r.isError === true && text(r).includes("packages/pricing/src/index.ts") && text(r).includes("packages/user/src/index.ts"), "impact of the ambiguous quote: a tool error listing both", text(r));
  }
  {
    const [, t] = await call(client, "context", { target: "Order.linePrice", budget: 2000 });
    check(t.includes("## Context for `Order.linePrice`") && t.includes("```ts") && t.includes("return quote(line.unitCents, line.qty, this.rules);"), "context: the TypeScript source of Order.linePrice", t);
  }
  fs.appendFileSync(path.join(root, "packages", "user", "src", "index.ts"), "\n/** loyaltyBonus is new. */\nexport function loyaltyBonus(months: number): number {\n  return months * 2;\n}\n");
  {
    const [, t, sc] = await call(client, "changes", {});
    check(t.includes("packages/user/src/index.ts") && t.includes("loyaltyBonus"), "changes: names the changed file and the added function", t);
    check(sc.freshness && sc.freshness.changed >= 1, "changes: freshness counts the changed document", JSON.stringify(sc.freshness));
  }
  await client.close();
}

main().then(
  () => { console.log(failed ? `${failed} checks failed` : "all checks passed"); process.exit(failed ? 1 : 0); },
  (e) => { console.log("FAIL: " + (e && e.stack || e)); process.exit(1); },
);
