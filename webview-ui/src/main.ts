/**
 * Webview entry point. The task-graph page is built on top of this bundle (see the task-graph
 * issue); for now it loads the @vscode-elements components so every Ralph webview shares them.
 */
import '@vscode-elements/elements/dist/vscode-badge/index.js';

export {};
