// What the extension decides before it talks to VS Code: where orbitc is, what the
// server is told at start, what the user reads when orbitc cannot be found. No `vscode`
// import here, so that tests/editors/test_vscode_extension.py runs it under Node alone.
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The settings of the extension that the server needs (package.json, contributes). */
export interface OrbitSettings {
  serverPath: string;
  warn: string[];
  allow: string[];
  baseline?: string;
}

/** Where the server command was found, or why not. */
export type Resolved = { found: true; command: string } | { found: false; message: string };

function isExecutableFile(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * The executable that `orbit.server.path` names: a path (with a `/`; `~/` is the home
 * directory, a relative path is taken from the first workspace folder) or a command
 * looked up on PATH, as a shell would.
 */
export function resolveServer(
  setting: string,
  envPath: string,
  home: string,
  workspaceFolder: string | undefined,
): Resolved {
  const wanted = setting.trim() === '' ? 'orbitc' : setting.trim();
  if (wanted.includes('/') || wanted.includes(path.sep)) {
    let file = wanted.startsWith('~/') ? path.join(home, wanted.slice(2)) : wanted;
    if (!path.isAbsolute(file) && workspaceFolder) {
      file = path.join(workspaceFolder, file);
    }
    if (isExecutableFile(file)) {
      return { found: true, command: file };
    }
    return {
      found: false,
      message: notFound(`\`${file}\` (the setting "orbit.server.path") ` + 'is not an executable file'),
    };
  }
  for (const dir of envPath.split(path.delimiter)) {
    const file = path.join(dir === '' ? '.' : dir, wanted);
    if (isExecutableFile(file)) {
      return { found: true, command: file };
    }
  }
  return { found: false, message: notFound(`\`${wanted}\` was not found on PATH`) };
}

function notFound(why: string): string {
  return (
    `Orbit: the language server cannot start: ${why}. Install orbitc ` +
    '(docs/editors.md) or set "orbit.server.path" to its full path. ' +
    'Highlighting works without it; diagnostics, fixes, hover and formatting need it.'
  );
}

/** The server's initializationOptions (docs/editors.md, "Diagnostics" and "Baseline"):
 * lint levels, and the baseline file when one is set. */
export function initializationOptions(settings: OrbitSettings): { warn: string[]; allow: string[]; baseline?: string } {
  const codes = (list: string[]) => list.map((code) => code.trim()).filter((code) => code !== '');
  const options: { warn: string[]; allow: string[]; baseline?: string } = {
    warn: codes(settings.warn),
    allow: codes(settings.allow),
  };
  const baseline = (settings.baseline ?? '').trim();
  if (baseline !== '') {
    options.baseline = baseline;
  }
  return options;
}
