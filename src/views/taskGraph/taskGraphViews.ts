/**
 * The Task Graph in the Ralph side bar (a webview view: the wave list that reads at 300 px) and in
 * the editor ("Open Task Graph in Editor": the full drawing, restored after a window reload by a
 * serializer). Both pages talk to one TaskGraphController.
 */
import * as vscode from 'vscode';
import { Views } from '../../constants';
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
    connectPage(this.controller, this.extensionUri, 'sidebar', view, view.onDidChangeVisibility);
  }
}

/**
 * Gives a webview (the side-bar view or the editor panel) the page's options and HTML, attaches it
 * to the controller, replays the latest state whenever it shows again (VS Code drops messages to a
 * hidden webview), and detaches it when it goes away.
 */
function connectPage(
  controller: TaskGraphController,
  extensionUri: vscode.Uri,
  kind: GraphPage['kind'],
  host: { readonly webview: vscode.Webview; readonly visible: boolean; onDidDispose: vscode.Event<void> },
  onDidChangeVisibility: vscode.Event<unknown>,
): void {
  host.webview.options = graphWebviewOptions(extensionUri);
  host.webview.html = graphHtml(host.webview, extensionUri, kind);
  const page: GraphPage = {
    webview: host.webview,
    kind,
    get visible() {
      return host.visible;
    },
  };
  const attached = controller.attach(page);
  const vis = onDidChangeVisibility(() => {
    if (host.visible) {
      controller.replay(page);
    }
  });
  host.onDidDispose(() => {
    attached.dispose();
    vis.dispose();
  });
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
    connectPage(controller, context.extensionUri, 'editor', p, p.onDidChangeViewState);
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
    adopt(vscode.window.createWebviewPanel(TASK_GRAPH_PANEL, 'Task Graph', vscode.ViewColumn.Active, { ...graphWebviewOptions(context.extensionUri), retainContextWhenHidden: false }));
  };
}
