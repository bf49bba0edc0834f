/**
 * How this install runs the render-stream filter of its own ralph-workbench command line, for the
 * `${renderStream}` placeholder (core/agents/template.ts): the running program (`process.execPath`:
 * Node for the CLI, VS Code's own executable in the extension host) and the bundled script. Both
 * come from the install, never from a workspace. VS Code's executable is Electron: it runs a script
 * as Node only with ELECTRON_RUN_AS_NODE in its environment, given to the renderer alone where the
 * shell can scope it (template.ts envOnCommandLine), so that the agent never runs with it: an agent
 * that starts an Electron app or VS Code's extension tests would get a broken Electron.
 */
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { RenderStreamCommand } from '../core/loop/iteration';

/** The render-stream of the CLI script at `cliScript` (dist/cli.js), run by this process's program; undefined when the script is missing. */
export function renderStreamCommand(cliScript: string | undefined): RenderStreamCommand | undefined {
  if (cliScript === undefined || !existsSync(cliScript)) {
    return undefined;
  }
  const electron = process.versions.electron !== undefined;
  return { argv: [process.execPath, realpathSync(cliScript), 'render-stream'], ...(electron ? { env: { ELECTRON_RUN_AS_NODE: '1' } } : {}) };
}

/** The extension's bundled command line: `<extension>/dist/cli.js`. */
export function extensionRenderStream(extensionPath: string): RenderStreamCommand | undefined {
  return renderStreamCommand(path.join(extensionPath, 'dist', 'cli.js'));
}

/** The running CLI's own script (`node …/dist/cli.js run`, or the npm bin link to it). */
export function cliRenderStream(): RenderStreamCommand | undefined {
  const script = process.argv[1];
  // Only the bundle itself (dist/cli.js, or its npm link): not a test runner that loaded the CLI's code.
  return script && /^(cli|ralph-workbench)(\.[cm]?js)?$/i.test(path.basename(script)) ? renderStreamCommand(path.resolve(script)) : undefined;
}
