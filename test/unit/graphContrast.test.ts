/** WCAG contrast of the task graph's arrows (webview-ui/src/graph/contrast.ts): the formula, and colours moved until they meet 3:1. */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { contrastRatio, cssColor, over, parseCssColor, relativeLuminance, withContrast } from '../../webview-ui/src/graph/contrast';

const hex = (s: string) => parseCssColor(s) ?? assert.fail(`not a colour: ${s}`);

describe('task graph contrast (WCAG 2)', () => {
  it('reads the colours a computed style gives and the theme files hold', () => {
    assert.deepEqual(parseCssColor('rgb(31, 31, 31)'), { r: 31, g: 31, b: 31, a: 1 });
    assert.deepEqual(parseCssColor('rgba(0, 0, 0, 0.5)'), { r: 0, g: 0, b: 0, a: 0.5 });
    assert.deepEqual(parseCssColor('rgb(255 128 0 / 25%)'), { r: 255, g: 128, b: 0, a: 0.25 });
    assert.deepEqual(parseCssColor('#C8C8C8'), { r: 200, g: 200, b: 200, a: 1 });
    assert.deepEqual(parseCssColor('#fff'), { r: 255, g: 255, b: 255, a: 1 });
    assert.deepEqual(parseCssColor('#0000001a'), { r: 0, g: 0, b: 0, a: 26 / 255 });
    assert.equal(parseCssColor('var(--x)'), undefined);
    assert.equal(parseCssColor(''), undefined);
  });

  it('relative luminance and contrast ratio follow the WCAG formula', () => {
    assert.equal(relativeLuminance(hex('#000')), 0);
    assert.equal(relativeLuminance(hex('#fff')), 1);
    assert.equal(contrastRatio(hex('#000'), hex('#fff')), 21);
    assert.equal(contrastRatio(hex('#fff'), hex('#000')), 21, 'symmetric');
    assert.equal(contrastRatio(hex('#777'), hex('#777')), 1);
    // the usual references: #767676 is the lightest grey with 4.5:1 on white, #777 just misses it
    assert.ok(contrastRatio(hex('#767676'), hex('#fff')) >= 4.5);
    assert.ok(contrastRatio(hex('#777777'), hex('#fff')) < 4.5);
    assert.equal(contrastRatio(hex('#949494'), hex('#fff')).toFixed(2), '3.03');
  });

  it('a translucent colour is judged as drawn, over its background', () => {
    assert.deepEqual(over(hex('rgba(0, 0, 0, 0.5)'), hex('#fff')), { r: 128, g: 128, b: 128, a: 1 });
  });

  it("today's arrow colours fail 3:1 in Light and Dark Modern; moved, they meet it and keep their hue's direction", () => {
    // editorWidget.border's defaults (light #C8C8C8, dark #454545) and charts.orange (#D18616)
    for (const [colour, bg] of [['#C8C8C8', '#FFFFFF'], ['#454545', '#1F1F1F'], ['#D18616', '#FFFFFF']] as const) {
      assert.ok(contrastRatio(hex(colour), hex(bg)) < 3, `${colour} on ${bg} is under 3:1 today`);
      const fixed = withContrast(hex(colour), hex(bg), 3);
      assert.ok(contrastRatio(fixed, hex(bg)) >= 3, `${cssColor(fixed)} on ${bg}`);
      assert.ok(contrastRatio(fixed, hex(bg)) < 3.3, 'no further than needed');
    }
    // orange stays orange: red above green above blue
    const orange = withContrast(hex('#D18616'), hex('#FFFFFF'), 3);
    assert.ok(orange.r > orange.g && orange.g > orange.b, cssColor(orange));
    // a colour that meets it already is kept
    assert.deepEqual(withContrast(hex('#6FC3DF'), hex('#000'), 3), hex('#6FC3DF'));
  });

  it('any colour on any background comes out at 3:1 or more', () => {
    const channel = fc.integer({ min: 0, max: 255 });
    const colour = fc.record({ r: channel, g: channel, b: channel, a: fc.double({ min: 0, max: 1, noNaN: true }) });
    const opaque = fc.record({ r: channel, g: channel, b: channel, a: fc.constant(1) });
    fc.assert(
      fc.property(colour, opaque, fc.constantFrom(3, 4.5), (c, bg, min) => {
        const out = withContrast(c, bg, min);
        assert.equal(out.a, 1);
        assert.ok(contrastRatio(out, bg) >= min, `${cssColor(out)} on ${cssColor(bg)}: ${contrastRatio(out, bg)}`);
      }),
      { numRuns: 500 },
    );
  });
});
