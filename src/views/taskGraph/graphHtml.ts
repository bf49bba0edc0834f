/** The task-graph page's HTML: strict CSP with a nonce, every asset through asWebviewUri. */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

export type GraphPageMode = 'sidebar' | 'editor';

/** Webview options: scripts on, resources only from dist/webview. */
export function graphWebviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist', 'webview')] };
}

export function graphHtml(webview: vscode.Webview, extensionUri: vscode.Uri, mode: GraphPageMode): string {
  const nonce = randomBytes(16).toString('base64');
  const asset = (name: string): string => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview', name)).toString();
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource} 'nonce-${nonce}'`,
    `font-src ${webview.cspSource}`,
    `img-src ${webview.cspSource} data:`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${asset('codicon.css')}" id="vscode-codicon-stylesheet">
<link rel="stylesheet" href="${asset('main.css')}">
<title>Task Graph</title>
</head>
<body data-mode="${mode}">
<div id="app" aria-busy="true">Loading the task graph…</div>
<script type="module" nonce="${nonce}" src="${asset('main.js')}"></script>
</body>
</html>`;
}
