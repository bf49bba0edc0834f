/**
 * The VS Code webview API, typed with the protocol: what the page may post and keep. Every request
 * is numbered here (graphProtocol.ts, `RequestIds`), and an answer is taken only when it answers
 * the latest request of its kind.
 */
import type { PageRequest, ViewState } from '../../../src/core/webview/graphProtocol';
import { RequestIds, viewStateSchema } from '../../../src/core/webview/graphProtocol';

export interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

/** The page's one handle on VS Code (a second acquireVsCodeApi() throws): the dashboard page uses it too. */
export const api: VsCodeApi = acquireVsCodeApi();

const requests = new RequestIds();

/** Posts a request (numbered now: its kind is its type), or `ready`. */
export function post(message: PageRequest | { type: 'ready' }): void {
  api.postMessage(message.type === 'ready' ? message : { ...message, requestId: requests.next(message.type) });
}

/** True when an answer (`details`, `notice`) answers the latest request of its kind: else it is late, and dropped. */
export function isCurrentAnswer(answers: number): boolean {
  return requests.isCurrent(answers);
}

/** The type of the request a current answer answers (`copy`, `editStory`, …). */
export function answeredKind(answers: number): string | undefined {
  return requests.kindOf(answers);
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
