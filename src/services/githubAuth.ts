/**
 * GitHub access from VS Code's authentication providers, as GitHub Pull Requests & Issues does:
 * `github`, or `github-enterprise` when the `github-enterprise.uri` setting names a GitHub
 * Enterprise Server (or GHE.com) instance. The token stays in memory: never in settings, on disk
 * or in a log.
 *
 * The user setting `ralph.github.standInUrl` (application scope: never read from a workspace; an
 * http URL on this machine only: url.ts `standInUrl`) replaces GitHub by a local stand-in, the
 * demo's recorded answers or the tests' emulator: no session is asked for and no token is sent.
 */
import * as vscode from 'vscode';
import { apiUrlForHost, standInUrl } from '../core/artifacts/url';
import { Disposable } from '../util/disposable';
import { readSetting } from './settings';

const SCOPES = ['repo'];
const SILENT_TIMEOUT_MS = 5000;

export interface GitHubAccess {
  /** Undefined for a stand-in: no token is sent to it. */
  readonly token?: string;
  /** The stand-in's URL when `ralph.github.standInUrl` replaces GitHub. */
  readonly standIn?: string;
  /** REST base. */
  readonly apiUrl: string;
  /** Web host of the repository links (github.com or the enterprise host). */
  readonly webHost: string;
  readonly account?: string;
}

export interface GitHubProvider {
  readonly providerId: 'github' | 'github-enterprise';
  readonly webHost: string;
  readonly apiUrl: string;
  readonly label: string;
}

/** Which provider this window uses: GitHub Enterprise when `github-enterprise.uri` is set. */
export function currentProvider(): GitHubProvider {
  const uri = vscode.workspace.getConfiguration('github-enterprise').get<string>('uri', '')?.trim();
  if (uri) {
    try {
      const host = new URL(uri).host.toLowerCase();
      if (host && host !== 'github.com') {
        return { providerId: 'github-enterprise', webHost: host, apiUrl: apiUrlForHost(host), label: `GitHub Enterprise (${host})` };
      }
    } catch {
      // an invalid URI: fall through to github.com (the built-in extension rejects it too)
    }
  }
  return { providerId: 'github', webHost: 'github.com', apiUrl: 'https://api.github.com', label: 'GitHub' };
}

export class GitHubAuth extends Disposable {
  private readonly onDidChangeEmitter = this.register(new vscode.EventEmitter<void>());
  /** Sessions or the enterprise setting changed. */
  readonly onDidChange = this.onDidChangeEmitter.event;

  constructor() {
    super();
    this.register(
      vscode.authentication.onDidChangeSessions((e) => {
        if (e.provider.id === 'github' || e.provider.id === 'github-enterprise') {
          this.onDidChangeEmitter.fire();
        }
      }),
    );
    this.register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('github-enterprise.uri')) {
          this.onDidChangeEmitter.fire();
        }
      }),
    );
  }

  /** The stand-in that replaces GitHub (`url`), or why the setting was refused (`problem`); empty when unset. */
  standIn(): { url?: string; problem?: string } {
    return standInUrl(readSetting('githubStandInUrl'));
  }

  /**
   * The session's token without prompting (`silent`), or after asking the user to sign in
   * (`interactive`). Undefined when there is none or the provider failed.
   */
  async access(interactive = false): Promise<GitHubAccess | undefined> {
    const standIn = this.standIn().url;
    if (standIn) {
      return { apiUrl: standIn, webHost: 'github.com', account: 'stand-in', standIn };
    }
    const p = currentProvider();
    try {
      const asking = vscode.authentication.getSession(p.providerId, SCOPES, interactive ? { createIfNone: true } : { silent: true });
      // A silent request waits for the provider to register; where there is none (a remote or
      // web host without the GitHub authentication extension) it would wait forever.
      const session = interactive ? await asking : await Promise.race([asking, new Promise<undefined>((r) => setTimeout(() => r(undefined), SILENT_TIMEOUT_MS))]);
      return session ? { token: session.accessToken, apiUrl: p.apiUrl, webHost: p.webHost, account: session.account.label } : undefined;
    } catch {
      return undefined;
    }
  }
}
