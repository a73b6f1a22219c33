-- Neovim's built-in LSP client (Neovim 0.7: vim.lsp.start_client, buf_attach_client)
-- driving `orbitc lsp`, run by tests/lsp/test_lsp_nvim.py:
--
--   ORBITC=build/cli/orbitc ORBIT_FILE=/tmp/x/checkout.orbit RESULT=/tmp/x/result.txt \
--     nvim --headless --clean -n -i NONE -u NONE -c 'luafile tests/lsp/lsp_nvim.lua'
--
-- It opens ORBIT_FILE, waits for the diagnostics, requests the code actions at the first
-- diagnostic that has a preferred quick fix, applies that fix with the client's own
-- workspace-edit code (vim.lsp.util.apply_workspace_edit), waits for the diagnostics of
-- the edited buffer; then it opens each file of FORMAT_FILES (colon-separated) and
-- writes it with format on save; it formats the lines RANGE_FIRST to RANGE_LAST of
-- RANGE_FILE; and it writes what it saw to RESULT, one fact per line:
--
--   diagnostic LINE:COL CODE MESSAGE        (before the fix; the first line of the message)
--   action TITLE
--   line TEXT                               (the buffer after the fix)
--   after LINE:COL CODE MESSAGE             (diagnostics after the fix)
--   formatted NAME FILEFORMAT CHANGED       (each of FORMAT_FILES, formatted on save)
--   fline TEXT                              (its buffer after the write)
--   rline TEXT                              (RANGE_FILE after range formatting)
--   exit CODE                               (the server's exit status)
--   error TEXT                              (something went wrong)

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

local function first_line(text) return (text:gsub('\n.*', '')) end

local function dump(prefix, diagnostics)
  table.sort(diagnostics, function(a, b)
    return a.lnum < b.lnum or (a.lnum == b.lnum and a.col < b.col)
  end)
  for _, d in ipairs(diagnostics) do
    say('%s %d:%d %s %s', prefix, d.lnum + 1, d.col + 1, tostring(d.code), first_line(d.message))
  end
end

local file = os.getenv('ORBIT_FILE')
vim.cmd('edit ' .. vim.fn.fnameescape(file))
local bufnr = vim.api.nvim_get_current_buf()
local root = vim.fn.fnamemodify(file, ':h')

local exit_code = nil
local client_id = vim.lsp.start_client({
  name = 'orbitc',
  cmd = { os.getenv('ORBITC'), 'lsp' },
  root_dir = root,
  on_exit = function(code) exit_code = code end,
})
if not client_id then return fail('the client did not start') end
vim.lsp.buf_attach_client(bufnr, client_id)

-- The diagnostics of the file as it was opened.
if not vim.wait(20000, function() return #vim.diagnostic.get(bufnr) > 0 end, 20) then
  return fail('no diagnostics within 20 seconds')
end
local before = vim.diagnostic.get(bufnr)
dump('diagnostic', before)

-- The code actions at each diagnostic, until one has a preferred quick fix.
local client = vim.lsp.get_client_by_id(client_id)
local chosen, target = nil, nil
for _, d in ipairs(before) do
  vim.api.nvim_win_set_cursor(0, { d.lnum + 1, d.col })
  local params = vim.lsp.util.make_range_params(0, client.offset_encoding)
  params.context = { diagnostics = { {
    range = params.range, message = d.message, code = d.code, severity = d.severity,
  } } }
  local response = client.request_sync('textDocument/codeAction', params, 10000, bufnr)
  if not response or response.err then return fail('codeAction failed') end
  for _, action in ipairs(response.result or {}) do
    if action.kind == 'quickfix' and action.isPreferred and action.edit then
      chosen, target = action, d
      break
    end
  end
  if chosen then break end
end
if not chosen then return fail('no preferred quick fix') end
say('action %s', chosen.title)

-- Applied by the client's own code; the buffer change goes to the server as didChange.
vim.lsp.util.apply_workspace_edit(chosen.edit, client.offset_encoding)
for _, text in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)) do
  say('line %s', text)
end

-- The diagnostics of the edited buffer: the fixed one is gone.
local function fixed()
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.lnum == target.lnum and d.code == target.code and d.message == target.message then
      return false
    end
  end
  return true
end
if not vim.wait(20000, fixed, 20) then return fail('the diagnostic did not go away') end
vim.wait(500, function() return false end, 50)   -- a later publication would show here
dump('after', vim.diagnostic.get(bufnr))

-- Format on save: each of FORMAT_FILES is opened, and written with a BufWritePre
-- autocommand that formats the buffer through the server first (the set-up of
-- docs/editors.md); the client's own code applies the edits.
local function format_buffer()
  if vim.lsp.buf.format then
    vim.lsp.buf.format({ timeout_ms = 10000 })            -- Neovim 0.8 and later
  else
    vim.lsp.buf.formatting_sync(nil, 10000)               -- Neovim 0.7
  end
end
for name in string.gmatch(os.getenv('FORMAT_FILES') or '', '[^:]+') do
  vim.cmd('edit ' .. vim.fn.fnameescape(name))
  local buf = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(buf, client_id)
  vim.api.nvim_create_autocmd('BufWritePre', { buffer = buf, callback = format_buffer })
  local tick = vim.api.nvim_buf_get_changedtick(buf)
  vim.cmd('write')
  say('formatted %s %s %s', vim.fn.fnamemodify(name, ':t'), vim.bo[buf].fileformat,
      tostring(vim.api.nvim_buf_get_changedtick(buf) > tick))
  for _, text in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    say('fline %s', text)
  end
end

-- Range formatting: RANGE_FILE, lines RANGE_FIRST to RANGE_LAST (1-based) selected; the
-- declarations they touch are formatted, the rest is left alone.
local range_file = os.getenv('RANGE_FILE')
if range_file then
  vim.cmd('edit ' .. vim.fn.fnameescape(range_file))
  local buf = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(buf, client_id)
  local first, last = tonumber(os.getenv('RANGE_FIRST')), tonumber(os.getenv('RANGE_LAST'))
  local tick = vim.api.nvim_buf_get_changedtick(buf)
  if vim.fn.has('nvim-0.9') == 1 then
    vim.lsp.buf.format({ range = { start = { first, 0 }, ['end'] = { last, 0 } } })
  else
    vim.lsp.buf.range_formatting({}, { first, 0 }, { last, 0 })   -- 0.7, 0.8: asynchronous
  end
  local function changed() return vim.api.nvim_buf_get_changedtick(buf) > tick end
  if not vim.wait(10000, changed, 10) then
    return fail('range formatting changed nothing')
  end
  for _, text in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    say('rline %s', text)
  end
end

vim.lsp.stop_client(client_id)
vim.wait(10000, function() return exit_code ~= nil end, 20)
say('exit %s', tostring(exit_code))
finish()
