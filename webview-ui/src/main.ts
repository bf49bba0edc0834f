/**
 * Webview entry point: the @vscode-elements components every Ralph page shares, and the task-graph
 * page when the host's HTML asks for it (body data-mode = sidebar | editor), or the Run Dashboard
 * (data-mode = dashboard).
 */
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import '@vscode-elements/elements/dist/vscode-textarea/index.js';
import '@vscode-elements/elements/dist/vscode-toolbar-button/index.js';
import './graph/graph.css';
import './dashboard/dashboard.css';
import { DashboardApp } from './dashboard/app';
import { GraphApp } from './graph/app';
import { applyStateColours } from './graph/legend';
import { followThemeContrast } from './graph/themeColours';

const mode = document.body.dataset.mode;
const root = document.getElementById('app');
if (root && (mode === 'sidebar' || mode === 'editor')) {
  applyStateColours(document.documentElement);
  followThemeContrast(mode);
  new GraphApp(root, mode);
} else if (root && mode === 'dashboard') {
  new DashboardApp(root);
}
