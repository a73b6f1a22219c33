-- Neovim's built-in LSP client (0.7: vim.lsp.start_client, vim.lsp.codelens) running a
-- test of `orbitc lsp` from its code lens, run by tests/lsp/test_lsp_nvim_lens.py:
--
--   ORBITC=build/cli/orbitc ORBIT_FILE=/tmp/x/checkout.test.orbit RESULT=/tmp/x/result.txt \
--     RUN_LINE=20 nvim --headless --clean -n -i NONE -u NONE -c 'luafile tests/lsp/lsp_nvim_lens.lua'
--
-- It opens ORBIT_FILE, asks for its code lenses (vim.lsp.codelens.refresh), puts the
-- cursor on line RUN_LINE and runs the lens there (vim.lsp.codelens.run: Neovim sends
-- workspace/executeCommand itself, the command being one the server advertises), waits
-- for the message and for the lens to show the result, and writes to RESULT one fact a
-- line:
--
--   lens LINE TITLE          (before the run)
--   message TYPE TEXT        (window/showMessage)
--   ran LINE TITLE           (the lenses after the run)
--   exit CODE                (the server's exit status)
--   error TEXT               (something went wrong)

local result = {}
local function say(...) table.insert(result, string.format(...)) end

local function finish()
  local f = assert(io.open(os.getenv('RESULT'), 'w'))
  f:write(table.concat(result, '\n') .. '\n')
  f:close()
  vim.cmd('qall!')
end

local function fail(text)
  say('error %s', text)
  finish()
end

local messages = {}
vim.lsp.handlers['window/showMessage'] = function(_, params)
  table.insert(messages, params)
end

local file = os.getenv('ORBIT_FILE')
vim.cmd('edit ' .. vim.fn.fnameescape(file))
local bufnr = vim.api.nvim_get_current_buf()

local exit_code = nil
local client_id = vim.lsp.start_client({
  name = 'orbitc',
  cmd = { os.getenv('ORBITC'), 'lsp' },
  root_dir = vim.fn.fnamemodify(file, ':h'),
  on_exit = function(code) exit_code = code end,
})
if not client_id then return fail('the client did not start') end
vim.lsp.buf_attach_client(bufnr, client_id)
local client = vim.lsp.get_client_by_id(client_id)
if not vim.wait(20000, function() return client.initialized end, 20) then
  return fail('the server did not initialize within 20 seconds')
end

local function lenses()
  local got = {}
  for _, lens in ipairs(vim.lsp.codelens.get(bufnr)) do
    table.insert(got, lens)
  end
  table.sort(got, function(a, b) return a.range.start.line < b.range.start.line end)
  return got
end

vim.lsp.codelens.refresh()
if not vim.wait(20000, function() return #lenses() > 0 end, 20) then
  return fail('no code lenses within 20 seconds')
end
for _, lens in ipairs(lenses()) do
  say('lens %d %s', lens.range.start.line + 1, lens.command.title)
end

local line = tonumber(os.getenv('RUN_LINE'))
vim.api.nvim_win_set_cursor(0, { line, 0 })
vim.lsp.codelens.run()
local function ran()
  for _, lens in ipairs(lenses()) do
    if lens.range.start.line + 1 == line and lens.command.title ~= '▶ Run test' then
      return true
    end
  end
  return false
end
if not vim.wait(60000, function() return #messages > 0 and ran() end, 20) then
  return fail('the lens did not show a result within 60 seconds')
end
for _, m in ipairs(messages) do
  say('message %d %s', m.type, m.message)
end
for _, lens in ipairs(lenses()) do
  say('ran %d %s', lens.range.start.line + 1, lens.command.title)
end

client.stop()
if not vim.wait(10000, function() return exit_code ~= nil end, 20) then
  return fail('the server did not exit')
end
say('exit %d', exit_code)
finish()
