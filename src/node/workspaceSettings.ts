/**
 * The CLI's settings: "defaults from the workspace's ralph.* settings in .vscode/settings.json
 * where present, else the extension's defaults". The file is read only when it is a regular file
 * inside the folder after following symlinks, and at most MAX_SETTINGS_BYTES of it; whatever is
 * wrong becomes a problem line (the key, the file and line, what is used instead), never a throw.
 */
import { errorMessage } from '../core/errorMessage';
import { defaultSettings, type SettingsFromFile, settingsFromText } from '../core/settingsFile';
import { readInsideBoundedSync, WorkspacePathError } from './workspacePath';

export type { SettingsFileProblem, SettingsFromFile } from '../core/settingsFile';

/** Where VS Code keeps a folder's settings, relative to the folder. */
export const WORKSPACE_SETTINGS_FILE = '.vscode/settings.json';

/** Real settings files are a few kilobytes; a bigger one is not read at all (a cut JSON text would not parse anyway). */
export const MAX_SETTINGS_BYTES = 1024 * 1024;

const USING_DEFAULTS = 'using the defaults of every ralph.* setting';

/** The ralph.* settings of the workspace folder `root` (synchronous: the CLI is; the read is small and bounded). */
export function readWorkspaceSettings(root: string): SettingsFromFile {
  const file = WORKSPACE_SETTINGS_FILE;
  let read;
  try {
    read = readInsideBoundedSync(root, file, { maxBytes: MAX_SETTINGS_BYTES }, { what: 'workspace settings file' });
  } catch (e) {
    // The path rule's messages say what and why ("… leads outside the workspace folder through a
    // symbolic link: it was not used."); anything else (no permission, an I/O error) is named too.
    const why = e instanceof WorkspacePathError ? e.message.replace(/\.$/, '') : `${file} could not be read: ${errorMessage(e)}`;
    return defaultSettings([{ message: `${why}; ${USING_DEFAULTS}` }]);
  }
  if (read === undefined) {
    return defaultSettings();
  }
  if (read.truncated) {
    return defaultSettings([{ message: `${file} is larger than ${MAX_SETTINGS_BYTES / (1024 * 1024)} MiB: it was not read; ${USING_DEFAULTS}` }]);
  }
  return settingsFromText(read.text, file);
}
