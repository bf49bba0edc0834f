/**
 * The agent chooser of a first run: the configured preset's program is not installed, so the
 * presets whose programs ARE on the terminal's PATH are offered in a quick pick, each naming the
 * program and where it was found. A pick writes `ralph.agent.preset` (in the scope that sets it
 * now, else the user's settings: which agent is installed belongs to the machine, and a new
 * `.vscode/settings.json` would be an uncommitted file the agent commits) and the run goes on.
 * Closing the pick changes nothing. When no preset's program is found, a RunError says which
 * programs were looked for, with "Open Setting" and the configured agent's install guide.
 */
import { type FoundPreset, getPreset, noAgentFoundMessage, PRESET_SETTING, presetPrograms, presetsOnPath } from '../../core/agents/presets';
import { terminalLookup } from '../../node/programLookup';
import { choose } from '../confirm';
import { readTerminalEnv, writeSetting } from '../settings';
import { ralphScripts } from '../../node/ralphScripts';
import { type PrepareContext, RunError } from './preparer';

/** True when the user chose an agent (the setting is written); false when they closed the pick. */
export async function chooseAgent(ctx: PrepareContext): Promise<boolean> {
  const { folder, settings, log } = ctx;
  const configured = getPreset(settings.agentPreset);
  if (!configured?.executable) {
    return false; // only presets have a program to replace; the caller reports the problem
  }
  const scripts = ralphScripts(folder.uri.fsPath);
  const found = presetsOnPath({ ...terminalLookup(readTerminalEnv(folder.uri)), cwd: folder.uri.fsPath }, (p) => scripts.has(p));
  if (found.length === 0) {
    throw new RunError(noAgentFoundMessage(configured, presetPrograms((p) => scripts.has(p))), { setting: PRESET_SETTING, link: configured.installUrl });
  }
  const picked = await choose(
    found.map((f) => ({ label: f.preset.label, description: `"${f.preset.executable}" found at ${f.path}`, found: f })),
    {
      title: `${configured.label} ("${configured.executable}") is not installed: choose an agent found on PATH`,
      placeHolder: `Your choice is saved in ${PRESET_SETTING}; Escape runs nothing`,
    },
  );
  if (!picked) {
    log.info('[runner] agent chooser closed: nothing was run');
    return false;
  }
  await save(ctx, picked.found);
  return true;
}

async function save({ folder, log }: PrepareContext, found: FoundPreset): Promise<void> {
  const target = await writeSetting('agentPreset', found.preset.id, folder.uri);
  log.info(`[runner] agent chooser: ${PRESET_SETTING} = "${found.preset.id}" (${found.path}), written to the ${['', 'user', 'workspace', 'workspace folder'][target]} settings`);
}
