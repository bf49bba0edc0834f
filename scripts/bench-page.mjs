// Timing what a user sees in the real workbench (scripts/vscode-host.mjs), shared by the benches
// that open a webview there (bench-workbench.mjs: the Task Graph; bench-dashboard-workbench.mjs:
// the Run Dashboard). Times are the page's Date.now(), on the same machine as the bench's.

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
export const fmt = (xs) => `median ${Math.round(median(xs))} ms (runs: ${xs.map((x) => Math.round(x)).join(', ')})`;

/** Polls `probe` until it returns something truthy (returned), or throws after `timeoutMs`. */
export async function until(what, probe, timeoutMs = 60_000) {
  const start = Date.now();
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v) return v;
    if (Date.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * Starts watching the frame's DOM; resolves with the page's Date.now() at the first animation frame
 * after `selector` matches (checked on every mutation), or null after `timeoutMs`.
 */
export function watch(frame, selector, timeoutMs = 15_000) {
  return frame.evaluate(
    ([sel, ms]) =>
      new Promise((resolve) => {
        const done = () => {
          obs.disconnect();
          clearTimeout(timer);
          requestAnimationFrame(() => resolve(Date.now()));
        };
        const obs = new MutationObserver(() => {
          if (document.querySelector(sel)) done();
        });
        const timer = setTimeout(() => {
          obs.disconnect();
          resolve(null);
        }, ms);
        if (document.querySelector(sel)) done();
        else obs.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
      }),
    [selector, timeoutMs],
  );
}

/** Types `command` into the command palette and presses Enter; resolves with Date.now() just before Enter. */
export async function runCommandTimed(page, command) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 10_000 });
  await input.fill(`>${command}`);
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: command }).first().waitFor({ state: 'visible', timeout: 10_000 });
  const t0 = Date.now();
  await input.press('Enter');
  return t0;
}
