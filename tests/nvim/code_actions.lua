-- Drives tritonrl-lsp from Neovim's own LSP client (headless), for tests/test_nvim.py.
-- Inputs (environment): TRITONRL_CMD (JSON list: the server command), TRITONRL_CWD, TRITONRL_FILE (the
-- Python file to open), TRITONRL_LINE (0-based line inside the class), TRITONRL_OUT (where the JSON
-- report goes). The report: what each step saw; the test asserts on it.
local report = { steps = {}, messages = {} }
local function step(name, value) table.insert(report.steps, { name = name, value = value }) end
local function finish()
  vim.fn.writefile({ vim.fn.json_encode(report) }, os.getenv("TRITONRL_OUT"))
  vim.cmd("qall!")
end

local ok, err = pcall(function()
  local initialized = false
  local client_id = vim.lsp.start_client({
    name = "tritonrl",
    cmd = vim.fn.json_decode(os.getenv("TRITONRL_CMD")),
    cmd_cwd = os.getenv("TRITONRL_CWD"),
    root_dir = os.getenv("TRITONRL_CWD"),
    on_init = function() initialized = true end,
    handlers = {
      ["window/showMessage"] = function(_, result) table.insert(report.messages, result.message) end,
    },
  })
  step("started", client_id ~= nil)
  vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("TRITONRL_FILE")))
  local bufnr = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(bufnr, client_id)
  step("initialized", vim.wait(60000, function() return initialized end, 50))
  local client = vim.lsp.get_client_by_id(client_id)

  local line = tonumber(os.getenv("TRITONRL_LINE"))
  local function actions()
    local params = {
      textDocument = { uri = vim.uri_from_bufnr(bufnr) },
      range = { start = { line = line, character = 0 }, ["end"] = { line = line, character = 0 } },
      context = { diagnostics = {} },
    }
    local res, e = client.request_sync("textDocument/codeAction", params, 30000, bufnr)
    if not res then error("codeAction: " .. tostring(e)) end
    if res.err then error("codeAction: " .. vim.inspect(res.err)) end
    return res.result or {}
  end

  local first = actions()
  local titles = {}
  for _, a in ipairs(first) do table.insert(titles, a.title) end
  step("titles", titles)

  -- run the generate command and wait for the job (the server answers when it ends)
  local gen = first[1].command
  local args = vim.deepcopy(gen.arguments)
  table.insert(args, { wait = true })
  local res, e = client.request_sync("workspace/executeCommand", { command = gen.command, arguments = args },
                                     600000, bufnr)
  if not res then error("executeCommand: " .. tostring(e)) end
  step("generate", res.result or res.err)

  local after = actions()
  local apply
  titles = {}
  for _, a in ipairs(after) do
    table.insert(titles, a.title)
    if not apply and a.title:find("^Apply verified Triton kernel") then apply = a end
  end
  step("titles_after", titles)
  if apply then
    vim.lsp.util.apply_workspace_edit(apply.edit, client.offset_encoding or "utf-16")
    for _, b in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_get_name(b):find("_triton%.py$") then
        vim.api.nvim_buf_call(b, function() vim.cmd("silent write") end)
        step("written", vim.api.nvim_buf_get_name(b))
      end
    end
  end
end)
if not ok then report.error = tostring(err) end
finish()
