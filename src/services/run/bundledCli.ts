/**
 * The extension's own install, for `${renderStream}`: activate() names the extension's folder once;
 * the agent command planners (serial and parallel runs) ask for the bundled render-stream here.
 */
import type { RenderStreamCommand } from '../../core/loop/iteration';
import { extensionRenderStream } from '../../node/renderStreamCommand';

let extensionPath: string | undefined;

/** Called by activate() with `context.extensionPath`. */
export function setExtensionPath(p: string): void {
  extensionPath = p;
}

/** VS Code's executable running `<extension>/dist/cli.js render-stream`; undefined before activation or without the bundle. */
export function bundledRenderStream(): RenderStreamCommand | undefined {
  return extensionPath === undefined ? undefined : extensionRenderStream(extensionPath);
}
