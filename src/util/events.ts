import type * as vscode from 'vscode';

/** One event that fires when any of `events` fires (the listener gets no payload). */
export function anyOf(...events: readonly vscode.Event<unknown>[]): vscode.Event<void> {
  return (listener, thisArgs, disposables) => {
    const subs = events.map((e) => e(() => listener.call(thisArgs)));
    const sub = { dispose: () => subs.forEach((s) => s.dispose()) };
    if (Array.isArray(disposables)) {
      disposables.push(sub);
    }
    return sub;
  };
}
