/** The VS Code webview API, typed with the protocol: what the page may post and keep. */
import type { PageMessage, ViewState } from '../../../src/core/webview/graphProtocol';
import { viewStateSchema } from '../../../src/core/webview/graphProtocol';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

const api: VsCodeApi = acquireVsCodeApi();

export function post(message: PageMessage): void {
  api.postMessage(message);
}

export const DEFAULT_VIEW: ViewState = { zoom: 1, panX: 24, panY: 24, hideDone: false, focus: false, search: '', direction: 'LR' };

/** The kept view state, validated: a state from an older page version falls back to defaults. */
export function loadViewState(): { state: ViewState; restored: boolean } {
  const r = viewStateSchema.safeParse(api.getState());
  return r.success ? { state: r.data, restored: true } : { state: { ...DEFAULT_VIEW }, restored: false };
}

export function saveViewState(s: ViewState): void {
  api.setState(s);
}
