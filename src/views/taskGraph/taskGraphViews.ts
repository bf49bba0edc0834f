/**
 * The Task Graph in the Ralph side bar (a webview view: the wave list that reads at 300 px) and in
 * the editor ("Open Task Graph in Editor": the full drawing, restored after a window reload by a
 * serializer). Both pages talk to one TaskGraphController.
 */
import * as vscode from 'vscode';
import { Views } from '../../constants';
import { Disposable } from '../../util/disposable';
import { hostPage, type PageSpec, webviewOptions } from '../webviewHost';
import type { GraphPage, TaskGraphController } from './taskGraphController';

export const TASK_GRAPH_PANEL = 'ralph.taskGraphPanel';

export class TaskGraphViewProvider extends Disposable implements vscode.WebviewViewProvider {
  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly controller: TaskGraphController,
  ) {
    super();
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    hostPage(this.controller, this.extensionUri, graphPage('sidebar'), view, view.onDidChangeVisibility);
  }
}

/** The task-graph page, in the side bar or in the editor (body data-mode). */
function graphPage(mode: GraphPage['kind']): PageSpec & { mode: GraphPage['kind'] } {
  return { title: 'Task Graph', loading: 'Loading the task graph…', mode };
}

/**
 * Registers the view and the editor panel's serializer; returns what "Open Task Graph" does (the
 * composition root registers that command through the registrar, as every command).
 */
export function registerTaskGraph(context: vscode.ExtensionContext, controller: TaskGraphController): () => void {
  const provider = new TaskGraphViewProvider(context.extensionUri, controller);
  context.subscriptions.push(provider, vscode.window.registerWebviewViewProvider(Views.taskGraph, provider));
  let panel: vscode.WebviewPanel | undefined;

  const adopt = (p: vscode.WebviewPanel): void => {
    panel = p;
    p.iconPath = vscode.Uri.joinPath(context.extensionUri, 'media', 'ralph.svg');
    hostPage(controller, context.extensionUri, graphPage('editor'), p, p.onDidChangeViewState);
    p.onDidDispose(() => {
      if (panel === p) {
        panel = undefined;
      }
    });
  };

  context.subscriptions.push(
    vscode.window.registerWebviewPanelSerializer(TASK_GRAPH_PANEL, {
      deserializeWebviewPanel: async (p: vscode.WebviewPanel) => adopt(p),
    }),
  );
  return () => {
    if (panel) {
      panel.reveal();
      return;
    }
    adopt(vscode.window.createWebviewPanel(TASK_GRAPH_PANEL, 'Task Graph', vscode.ViewColumn.Active, { ...webviewOptions(context.extensionUri), retainContextWhenHidden: false }));
  };
}
