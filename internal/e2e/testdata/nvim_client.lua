-- Drives one LSP session from headless Neovim (0.7 API: vim.lsp.start_client
-- and vim.lsp.buf_attach_client) and writes what it saw as JSON.
--
-- The Go test writes the configuration (JSON) and sets LSPGRAPH_E2E_CONFIG
-- to its path:
--   cmd         the server command (e.g. lspgraph proxy --store DIR -- gopls)
--   root        the workspace folder
--   file        the file to open
--   timeout_ms  bound of every wait
--   out         where to write the results
--   requests    list of {name, method, params}; params may use the string
--               "$URI" for the opened buffer's URI (textDocument.uri).
--               A step with "edit" = {line, text} inserts text before the
--               1-based line of the buffer without saving it and waits
--               until the client has sent the change; one with "shell" =
--               argv runs a command while the editor stays attached and
--               records {out, code}; one with "wait_file" = PATH waits until
--               the file exists; one with "lua" = CHUNK runs the chunk in the
--               buffer and records {ok, err, value, messages} (value: what
--               the chunk returned).
local cfg = vim.fn.json_decode(table.concat(vim.fn.readfile(vim.env.LSPGRAPH_E2E_CONFIG), "\n"))
local res = { steps = {} }

local function replace_uri(v, uri)
  if v == "$URI" then
    return uri
  end
  if type(v) == "table" then
    local out = {}
    for k, x in pairs(v) do
      out[k] = replace_uri(x, uri)
    end
    return out
  end
  return v
end

local function run()
  local id = vim.lsp.start_client({
    name = "lspgraph-e2e",
    cmd = cfg.cmd,
    root_dir = cfg.root,
    workspace_folders = { { uri = vim.uri_from_fname(cfg.root), name = vim.fn.fnamemodify(cfg.root, ":t") } },
  })
  assert(id, "vim.lsp.start_client returned nil")
  vim.cmd("edit! " .. vim.fn.fnameescape(cfg.file))
  local buf = vim.api.nvim_get_current_buf()
  assert(vim.lsp.buf_attach_client(buf, id), "vim.lsp.buf_attach_client failed")
  local client = vim.lsp.get_client_by_id(id)
  assert(vim.wait(cfg.timeout_ms, function()
    return client.initialized
  end, 20), "the server did not finish initialize within the timeout")
  local ecp = client.server_capabilities.executeCommandProvider
  res.commands = ecp and ecp.commands or {}
  local uri = vim.uri_from_bufnr(buf)
  for _, r in ipairs(cfg.requests) do
    local t0 = vim.loop.hrtime()
    if r.edit then
      local tick = vim.api.nvim_buf_get_changedtick(buf)
      vim.api.nvim_buf_set_lines(buf, r.edit.line - 1, r.edit.line - 1, false, vim.split(r.edit.text, "\n"))
      assert(vim.api.nvim_buf_get_changedtick(buf) > tick, "the edit did not change the buffer")
      -- The client sends didChange after its debounce; wait past it.
      vim.wait(600, function() return false end, 20)
      res.steps[r.name] = { ms = (vim.loop.hrtime() - t0) / 1e6, result = { modified = vim.bo[buf].modified } }
      goto continue
    end
    if r.lua then
      -- A chunk run in the opened buffer; its messages are recorded.
      vim.cmd("messages clear")
      local chunk, lerr = loadstring(r.lua)
      local ok, e = false, lerr
      if chunk then
        ok, e = pcall(chunk)
      end
      local step = { ok = ok, err = "", messages = vim.fn.execute("messages") }
      if ok then
        step.value = e
      else
        step.err = tostring(e)
      end
      res.steps[r.name] = { ms = (vim.loop.hrtime() - t0) / 1e6, result = step }
      goto continue
    end
    if r.wait_file then
      local ok = vim.wait(cfg.timeout_ms, function()
        return vim.loop.fs_stat(r.wait_file) ~= nil
      end, 20)
      res.steps[r.name] = { ms = (vim.loop.hrtime() - t0) / 1e6, result = { ok = ok } }
      goto continue
    end
    if r.shell then
      local out = vim.fn.system(r.shell)
      res.steps[r.name] = { ms = (vim.loop.hrtime() - t0) / 1e6, result = { out = out, code = vim.v.shell_error } }
      goto continue
    end
    local answers, err = vim.lsp.buf_request_sync(buf, r.method, replace_uri(r.params, uri), cfg.timeout_ms)
    local step = { ms = (vim.loop.hrtime() - t0) / 1e6 }
    if not answers then
      step.error = { message = tostring(err or "no answer") }
    elseif not answers[id] then
      step.error = { message = "the client sent no " .. r.method .. " (server capability missing?)" }
    else
      step.result, step.error = answers[id].result, answers[id].err or answers[id].error -- Neovim 0.7: error
    end
    res.steps[r.name] = step
    ::continue::
  end
  local t0 = vim.loop.hrtime()
  client.stop()
  res.stopped = vim.wait(cfg.timeout_ms, function()
    return client.is_stopped()
  end, 20)
  res.stop_ms = (vim.loop.hrtime() - t0) / 1e6
end

local ok, err = xpcall(run, debug.traceback)
res.ok = ok
if not ok then
  res.error = tostring(err)
end
res.messages = vim.fn.execute("messages")
vim.fn.writefile({ vim.fn.json_encode(res) }, cfg.out)
vim.cmd("qa!")
