/**
 * The Task Graph in the Ralph side bar (a webview view: the wave list that reads at 300 px) and in
 * the editor ("Open Task Graph in Editor": the full drawing, restored after a window reload by a
 * serializer). Both pages talk to one TaskGraphController.
 */
import * as vscode from 'vscode';
import { Commands, Views } from '../../constants';
import { Disposable } from '../../util/disposable';
import { graphHtml, graphWebviewOptions } from './graphHtml';
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
    view.webview.options = graphWebviewOptions(this.extensionUri);
    view.webview.html = graphHtml(view.webview, this.extensionUri, 'sidebar');
    const page: GraphPage = {
      webview: view.webview,
      kind: 'sidebar',
      get visible() {
        return view.visible;
      },
    };
    const attached = this.controller.attach(page);
    const vis = view.onDidChangeVisibility(() => {
      if (view.visible) {
        this.controller.replay(page);
      }
    });
    view.onDidDispose(() => {
      attached.dispose();
      vis.dispose();
    });
  }
}

/** Registers the view, the editor panel command and its serializer. */
export function registerTaskGraph(context: vscode.ExtensionContext, controller: TaskGraphController): void {
  const provider = new TaskGraphViewProvider(context.extensionUri, controller);
  context.subscriptions.push(provider, vscode.window.registerWebviewViewProvider(Views.taskGraph, provider));
  let panel: vscode.WebviewPanel | undefined;

  const adopt = (p: vscode.WebviewPanel): void => {
    panel = p;
    p.webview.options = graphWebviewOptions(context.extensionUri);
    p.iconPath = vscode.Uri.joinPath(context.extensionUri, 'media', 'ralph.svg');
    p.webview.html = graphHtml(p.webview, context.extensionUri, 'editor');
    const page: GraphPage = {
      webview: p.webview,
      kind: 'editor',
      get visible() {
        return p.visible;
      },
    };
    const attached = controller.attach(page);
    const vis = p.onDidChangeViewState(() => {
      if (p.visible) {
        controller.replay(page);
      }
    });
    p.onDidDispose(() => {
      attached.dispose();
      vis.dispose();
      if (panel === p) {
        panel = undefined;
      }
    });
  };

  context.subscriptions.push(
    vscode.commands.registerCommand(Commands.openTaskGraph, () => {
      if (panel) {
        panel.reveal();
        return;
      }
      adopt(vscode.window.createWebviewPanel(TASK_GRAPH_PANEL, 'Task Graph', vscode.ViewColumn.Active, { ...graphWebviewOptions(context.extensionUri), retainContextWhenHidden: false }));
    }),
    vscode.window.registerWebviewPanelSerializer(TASK_GRAPH_PANEL, {
      deserializeWebviewPanel: async (p: vscode.WebviewPanel) => adopt(p),
    }),
  );
}
