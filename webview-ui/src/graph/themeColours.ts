/**
 * The arrows' colours, made to meet WCAG's 3:1 non-text contrast against the page's background in
 * whatever theme is active: each theme colour the drawing's lines use (`--edge`, `--critical`,
 * `--cycle`, as graph.css and applyStateColours declare them on the root) is read as the theme
 * has it, moved just far enough towards black or white (contrast.ts), and set on the body, where
 * the drawing inherits it. Done again whenever VS Code changes the theme (it rewrites the root's
 * `--vscode-*` variables and the body's theme class).
 */
import { cssColor, parseCssColor, type Rgba, withContrast } from './contrast';

/** WCAG 2.1, 1.4.11 Non-text Contrast: graphical objects need 3:1 against what is next to them. */
export const ARROW_CONTRAST = 3;

/**
 * The line colours of the drawing (edges, arrowheads, node borders) kept readable. `opaque`: a
 * signal colour taken at full strength (the critical path's `charts.orange` is the translucent
 * find-match highlight in the default themes: blended with the background, then darkened, it turns
 * brown); the others are drawn as the theme blends them (a faint grey border becomes a mid grey).
 */
const LINE_COLOURS: readonly { readonly name: string; readonly opaque: boolean }[] = [
  { name: '--edge', opaque: false },
  { name: '--critical', opaque: true },
  { name: '--cycle', opaque: true },
];

/** The page's background: the editor's for the editor panel, the side bar's for the view. */
function backgroundVariable(mode: 'sidebar' | 'editor'): string {
  return mode === 'editor' ? 'var(--vscode-editor-background, Canvas)' : 'var(--vscode-sideBar-background, var(--vscode-editor-background, Canvas))';
}

/** Sets the contrasting line colours now and after every theme change. */
export function followThemeContrast(mode: 'sidebar' | 'editor'): void {
  let frame = 0;
  const again = (): void => {
    if (frame === 0) {
      frame = requestAnimationFrame(() => {
        frame = 0;
        applyLineContrast(mode);
      });
    }
  };
  applyLineContrast(mode);
  new MutationObserver(again).observe(document.documentElement, { attributes: true, attributeFilter: ['style', 'class'] });
  new MutationObserver(again).observe(document.body, { attributes: true, attributeFilter: ['class'] });
}

function applyLineContrast(mode: 'sidebar' | 'editor'): void {
  // A probe resolves any CSS colour (hex, rgb(), a name, a var()) to rgb() as the browser draws it.
  const probe = document.createElement('div');
  probe.style.display = 'none';
  document.body.append(probe);
  const resolve = (css: string): Rgba | undefined => {
    probe.style.color = '';
    probe.style.color = css;
    return css.trim() === '' ? undefined : parseCssColor(getComputedStyle(probe).color);
  };
  const background = resolve(backgroundVariable(mode));
  const root = getComputedStyle(document.documentElement);
  for (const { name, opaque } of LINE_COLOURS) {
    // the root holds the theme's colour; the body the readable one (so it never reads its own output)
    const theme = resolve(root.getPropertyValue(name));
    if (!background || background.a < 1 || !theme) {
      document.body.style.removeProperty(name);
      continue;
    }
    document.body.style.setProperty(name, cssColor(withContrast(opaque ? { ...theme, a: 1 } : theme, background, ARROW_CONTRAST)));
  }
  probe.remove();
}
