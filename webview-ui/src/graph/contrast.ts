/**
 * WCAG 2 contrast, pure: relative luminance, the contrast ratio, and a colour moved just far enough
 * towards black or white to meet a ratio against its background. The drawing uses it so arrows
 * meet the 3:1 of non-text contrast (WCAG 1.4.11) in whatever theme is active (themeColours.ts).
 */

/** A colour in sRGB: channels 0–255, alpha 0–1. */
export interface Rgba {
  readonly r: number;
  readonly g: number;
  readonly b: number;
  readonly a: number;
}

const HEX = /^#([\da-f]{3,4}|[\da-f]{6}|[\da-f]{8})$/i;
const FUNCTIONAL = /^rgba?\(([^)]*)\)$/i;

/** A colour as computed styles (`rgb(…)`, `rgba(…)`, `rgb(r g b / a)`) and theme files (`#rgb[a]`, `#rrggbb[aa]`) write it; undefined otherwise. */
export function parseCssColor(text: string): Rgba | undefined {
  const s = text.trim();
  const hex = HEX.exec(s)?.[1];
  if (hex) {
    const digits = hex.length <= 4 ? [...hex].map((d) => d + d) : (hex.match(/../g) ?? []);
    const [r, g, b, a] = digits.map((d) => Number.parseInt(d, 16));
    return { r, g, b, a: a === undefined ? 1 : a / 255 };
  }
  const args = FUNCTIONAL.exec(s)?.[1];
  if (args === undefined) {
    return undefined;
  }
  const parts = args.split(/[\s,/]+/).filter((p) => p !== '');
  if (parts.length < 3 || parts.length > 4) {
    return undefined;
  }
  const [r, g, b] = parts.slice(0, 3).map(Number);
  const alpha = parts[3];
  const a = alpha === undefined ? 1 : alpha.endsWith('%') ? Number(alpha.slice(0, -1)) / 100 : Number(alpha);
  return [r, g, b, a].every(Number.isFinite) ? { r, g, b, a: Math.min(1, Math.max(0, a)) } : undefined;
}

/** The colour as CSS. */
export function cssColor(c: Rgba): string {
  return c.a >= 1 ? `rgb(${c.r}, ${c.g}, ${c.b})` : `rgba(${c.r}, ${c.g}, ${c.b}, ${c.a})`;
}

/** A (possibly translucent) colour as it shows over an opaque background. */
export function over(fg: Rgba, bg: Rgba): Rgba {
  const mix = (f: number, b: number): number => Math.round(f * fg.a + b * (1 - fg.a));
  return { r: mix(fg.r, bg.r), g: mix(fg.g, bg.g), b: mix(fg.b, bg.b), a: 1 };
}

/** WCAG 2 relative luminance of an opaque colour (0 black … 1 white). */
export function relativeLuminance(c: Rgba): number {
  const lin = (v: number): number => {
    const s = v / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
}

/** WCAG 2 contrast ratio of two opaque colours, 1 … 21 (the order does not matter). */
export function contrastRatio(a: Rgba, b: Rgba): number {
  const la = relativeLuminance(a);
  const lb = relativeLuminance(b);
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

const BLACK: Rgba = { r: 0, g: 0, b: 0, a: 1 };
const WHITE: Rgba = { r: 255, g: 255, b: 255, a: 1 };

/**
 * The colour as drawn over `bg`, moved towards black or white (whichever contrasts more with the
 * background) just far enough to reach `min`: the theme's hue is kept, only its lightness moves.
 * A colour that meets `min` already comes back as it is (made opaque over the background).
 */
export function withContrast(colour: Rgba, bg: Rgba, min: number): Rgba {
  const base = over(colour, bg);
  if (contrastRatio(base, bg) >= min) {
    return base;
  }
  const target = contrastRatio(BLACK, bg) >= contrastRatio(WHITE, bg) ? BLACK : WHITE;
  const at = (t: number): Rgba => ({
    r: Math.round(base.r + (target.r - base.r) * t),
    g: Math.round(base.g + (target.g - base.g) * t),
    b: Math.round(base.b + (target.b - base.b) * t),
    a: 1,
  });
  // the ratio along the way falls (while passing the background's lightness), then rises: the
  // colours that meet `min` are one interval ending at the target, whose start is searched
  let lo = 0;
  let hi = 1;
  for (let k = 0; k < 24; k++) {
    const mid = (lo + hi) / 2;
    if (contrastRatio(at(mid), bg) >= min) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  return at(hi);
}
