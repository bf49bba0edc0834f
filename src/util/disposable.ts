import type * as vscode from 'vscode';

/** Owns disposables and disposes them together (the pattern of vscode-pull-request-github). */
export abstract class Disposable implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private disposed = false;

  protected register<T extends vscode.Disposable>(d: T): T {
    if (this.disposed) {
      d.dispose();
    } else {
      this.disposables.push(d);
    }
    return d;
  }

  dispose(): void {
    if (this.disposed) {
      return;
    }
    this.disposed = true;
    for (const d of this.disposables.splice(0).reverse()) {
      try {
        d.dispose();
      } catch {
        // a failing dispose must not keep the others alive
      }
    }
  }
}
