/**
 * The one host of Ralph's webview pages, shared by the Task Graph's side view and its editor panel:
 * the options (scripts on, resources only from dist/webview), the HTML with its strict CSP and a
 * fresh nonce, and the message plumbing between a page and its controller.
 *
 * A page's requests carry ids and the host's answers name them (graphProtocol.ts). The page drops a
 * late answer; the host drops an answer for a page that was disposed, or reloaded (it said `ready`
 * again: VS Code reloads a hidden webview's page when it shows again) since it asked, because
 * the page it was meant for is gone.
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { lateAnswersFromEnv } from './lateAnswerSeam';

/** Where the pages' bundles are (scripts/build.mjs): the only resource root a page gets. */
const ASSETS = ['dist', 'webview'] as const;

/** In the test build only, when RALPH_TEST_LATE_ANSWER asks: one answer held back (lateAnswerSeam.ts). */
const late = lateAnswersFromEnv();

/** What a page is: its title, what the body says while the script loads, its mode (body data-mode). */
export interface PageSpec {
  readonly title: string;
  readonly loading: string;
  readonly mode: string;
}

/** Webview options: scripts on, resources only from dist/webview. */
export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(extensionUri, ...ASSETS)] };
}

/**
 * The page's HTML: CSP `default-src 'none'`, scripts only with this load's nonce, styles from the
 * extension's assets (or with the nonce), every asset through asWebviewUri.
 */
export function pageHtml(webview: vscode.Webview, extensionUri: vscode.Uri, spec: PageSpec): string {
  const nonce = randomBytes(16).toString('base64');
  const asset = (name: string): string => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, ...ASSETS, name)).toString();
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
<title>${escapeHtml(spec.title)}</title>
</head>
<body data-mode="${escapeHtml(spec.mode)}">
<div id="app" aria-busy="true">${escapeHtml(spec.loading)}</div>
<script type="module" nonce="${nonce}" src="${asset('main.js')}"></script>
</body>
</html>`;
}

/** What VS Code gives a page: a WebviewView or a WebviewPanel. */
export interface WebviewContainer {
  readonly webview: Pick<vscode.Webview, 'postMessage'>;
  readonly visible: boolean;
}

/**
 * One page in a webview, as its controller sees it: state messages go to it while it lives, and an
 * answer goes to the load of the page that asked, or nowhere.
 */
export class HostedPage<Out, Kind extends string = string> {
  /** Bumped each time the page (re)loads and says it is ready. */
  private load = 0;
  private disposed = false;

  constructor(
    private readonly container: WebviewContainer,
    readonly kind: Kind,
  ) {}

  get visible(): boolean {
    return !this.disposed && this.container.visible;
  }

  /** The page (re)loaded: answers to what its earlier load asked are dropped. */
  loaded(): void {
    this.load += 1;
  }

  /** Posts a message while the page lives (a disposed webview would throw). */
  post(message: Out): void {
    if (!this.disposed) {
      // a page closed between this check and the post rejects: nothing to tell anyone
      void this.container.webview.postMessage(message).then(undefined, () => undefined);
    }
  }

  /** Where the answer to a request that arrives now goes: to this load of the page only. */
  replier(): (answer: Out) => void {
    const load = this.load;
    return (answer) => {
      if (load !== this.load) {
        return;
      }
      if (late) {
        late.route(answer, (m) => this.post(m as Out));
      } else {
        this.post(answer);
      }
    };
  }

  dispose(): void {
    this.disposed = true;
  }
}

/** The controller of a kind of page: it takes pages in, reads what they post, replays its state. */
export interface PageController<Out, Kind extends string> {
  attach(page: HostedPage<Out, Kind>): vscode.Disposable;
  receive(page: HostedPage<Out, Kind>, data: unknown): Promise<void>;
  replay(page: HostedPage<Out, Kind>): void;
}

/**
 * Gives a webview (a side-bar view or an editor panel) the page's options and HTML, attaches it to
 * its controller, passes on what the page posts, replays the latest state whenever it shows again
 * (VS Code drops messages posted to a hidden webview), and detaches it when it goes away.
 */
export function hostPage<Out, Kind extends string>(
  controller: PageController<Out, Kind>,
  extensionUri: vscode.Uri,
  spec: PageSpec & { readonly mode: Kind },
  container: { readonly webview: vscode.Webview; readonly visible: boolean; onDidDispose: vscode.Event<void> },
  onDidChangeVisibility: vscode.Event<unknown>,
): HostedPage<Out, Kind> {
  container.webview.options = webviewOptions(extensionUri);
  container.webview.html = pageHtml(container.webview, extensionUri, spec);
  const page = new HostedPage<Out, Kind>(container, spec.mode);
  const subscriptions = [
    controller.attach(page),
    container.webview.onDidReceiveMessage((data: unknown) => void controller.receive(page, data)),
    onDidChangeVisibility(() => {
      if (container.visible) {
        controller.replay(page);
      }
    }),
  ];
  container.onDidDispose(() => {
    page.dispose();
    for (const s of subscriptions) {
      s.dispose();
    }
  });
  return page;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
