// The Orbit extension: starts `orbitc lsp` (the language server of docs/editors.md) for
// Orbit files with vscode-languageclient, restarts it when its settings change, and says
// plainly when orbitc cannot be found. Highlighting (the TextMate grammar) and the
// language configuration need no code: package.json contributes them.
import * as os from 'node:os';
import * as vscode from 'vscode';
import { LanguageClient, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';

import { initializationOptions, type OrbitSettings, resolveServer } from './server';

let client: LanguageClient | undefined;
let output: vscode.LogOutputChannel | undefined;

function readSettings(): OrbitSettings {
  const config = vscode.workspace.getConfiguration('orbit');
  return {
    serverPath: config.get<string>('server.path', 'orbitc'),
    warn: config.get<string[]>('lint.warn', []),
    allow: config.get<string[]>('lint.allow', []),
    baseline: config.get<string>('baseline', ''),
  };
}

async function start(): Promise<void> {
  const settings = readSettings();
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const server = resolveServer(settings.serverPath, process.env.PATH ?? '', os.homedir(), folder);
  if (!server.found) {
    const choice = await vscode.window.showErrorMessage(server.message, 'Open Settings');
    if (choice === 'Open Settings') {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'orbit.server.path');
    }
    return;
  }
  output ??= vscode.window.createOutputChannel('Orbit Language Server', { log: true });
  const serverOptions: ServerOptions = { command: server.command, args: ['lsp'] };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'orbit' },
      { scheme: 'untitled', language: 'orbit' },
    ],
    initializationOptions: initializationOptions(settings),
    outputChannel: output,
  };
  client = new LanguageClient('orbit', 'Orbit Language Server', serverOptions, clientOptions);
  await client.start();
}

async function stop(): Promise<void> {
  const running = client;
  client = undefined;
  if (running) {
    await running.stop();
  }
}

async function restart(): Promise<void> {
  await stop();
  await start();
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  context.subscriptions.push(
    vscode.commands.registerCommand('orbit.restartServer', restart),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (
        event.affectsConfiguration('orbit.server.path') ||
        event.affectsConfiguration('orbit.lint') ||
        event.affectsConfiguration('orbit.baseline')
      ) {
        void restart();
      }
    }),
    { dispose: () => void stop() },
  );
  await start();
}

export function deactivate(): Promise<void> {
  return stop();
}
