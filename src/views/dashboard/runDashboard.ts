/**
 * The Run Dashboard (issue 21): an editor panel with the page `dashboard` (webview-ui/src/dashboard),
 * hosted like the Task Graph (webviewHost.ts: strict CSP, nonce, zod on arrival both ways). The
 * controller keeps the page's filter, answers `ready` and `filter` with the figures, and posts them
 * again whenever runs.jsonl, prd.json or the archive change (RunInsights.onDidChange), so the page
 * follows runs.jsonl live.
 */
import * as vscode from 'vscode';
import { dashboardStatsMessage } from '../../core/insights/charts';
import { parseDateBound, type StatsFilter } from '../../core/insights/stats';
import { type DashboardFilter, type DashboardHostMessage, parseDashboardPageMessage } from '../../core/webview/dashboardProtocol';
import type { RunInsights } from '../../services/runInsights';
import { Disposable } from '../../util/disposable';
import { type HostedPage, hostPage, type PageController, webviewOptions } from '../webviewHost';

export const RUN_DASHBOARD_PANEL = 'ralph.runDashboard';

type DashboardPage = HostedPage<DashboardHostMessage, 'dashboard'>;

/** The page's dates (`YYYY-MM-DD`, UTC days) as the figures' bounds. */
export function statsFilter(f: DashboardFilter): StatsFilter {
  const bound = (d: string | undefined, which: 'since' | 'until'): number | undefined => {
    const t = d === undefined ? undefined : parseDateBound(d, which);
    return typeof t === 'number' ? t : undefined;
  };
  return { feature: f.feature, since: bound(f.since, 'since'), until: bound(f.until, 'until') };
}

export class RunDashboardController extends Disposable implements PageController<DashboardHostMessage, 'dashboard'> {
  private readonly pages = new Set<DashboardPage>();
  private filter: DashboardFilter = {};
  /** Bumped by each post: an older computation that ends late does not overwrite a newer one. */
  private generation = 0;

  constructor(
    private readonly insights: RunInsights,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
    this.register(insights.onDidChange(() => this.postAll()));
  }

  attach(page: DashboardPage): vscode.Disposable {
    this.pages.add(page);
    return { dispose: () => this.pages.delete(page) };
  }

  async receive(page: DashboardPage, data: unknown): Promise<void> {
    const parsed = parseDashboardPageMessage(data);
    if (!parsed.ok) {
      this.log.warn(`Run Dashboard: ${parsed.error}`);
      return;
    }
    if (parsed.message.type === 'ready') {
      page.loaded();
    } else {
      this.filter = parsed.message.filter;
    }
    await this.postAll();
  }

  replay(): void {
    void this.postAll();
  }

  private async postAll(): Promise<void> {
    const generation = ++this.generation;
    const message = await this.message().catch((e: unknown): DashboardHostMessage => {
      this.log.error(`Run Dashboard: ${(e as Error).message}`);
      return { type: 'empty', message: 'The run figures could not be read: see the Ralph output for why.' };
    });
    if (generation !== this.generation) {
      return;
    }
    for (const page of this.pages) {
      page.post(message);
    }
  }

  private async message(): Promise<DashboardHostMessage> {
    const folder = this.insights.defaultFolder();
    if (!folder) {
      return { type: 'empty', message: 'Open a folder with a prd.json: the dashboard shows the runs recorded in its .ralph/runs.jsonl.' };
    }
    const { stats, skipped } = await this.insights.statsFor(folder, statsFilter(this.filter));
    if (stats.runs === 0 && stats.filteredOut === 0) {
      return { type: 'empty', message: `No runs recorded in ${folder.name} yet: each iteration of a loop adds one to .ralph/runs.jsonl.` };
    }
    return dashboardStatsMessage(folder.name, this.filter, stats, skipped);
  }
}

/** Registers the panel's serializer; returns what "Open Run Dashboard" does. */
export function registerRunDashboard(context: vscode.ExtensionContext, controller: RunDashboardController): () => void {
  let panel: vscode.WebviewPanel | undefined;
  const adopt = (p: vscode.WebviewPanel): void => {
    panel = p;
    p.iconPath = vscode.Uri.joinPath(context.extensionUri, 'media', 'ralph.svg');
    hostPage(controller, context.extensionUri, { title: 'Run Dashboard', loading: 'Loading the run dashboard…', mode: 'dashboard' }, p, p.onDidChangeViewState);
    p.onDidDispose(() => {
      if (panel === p) {
        panel = undefined;
      }
    });
  };
  context.subscriptions.push(controller, vscode.window.registerWebviewPanelSerializer(RUN_DASHBOARD_PANEL, { deserializeWebviewPanel: async (p: vscode.WebviewPanel) => adopt(p) }));
  return () => {
    if (panel) {
      panel.reveal();
      return;
    }
    adopt(vscode.window.createWebviewPanel(RUN_DASHBOARD_PANEL, 'Run Dashboard', vscode.ViewColumn.Active, { ...webviewOptions(context.extensionUri), retainContextWhenHidden: false }));
  };
}
