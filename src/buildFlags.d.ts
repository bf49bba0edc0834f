/**
 * Build-time constants, replaced by esbuild's `define` (scripts/build.mjs, scripts/build-tests.mjs).
 *
 * `__RALPH_TEST__`: true in the bundle the test tiers load (`npm run build`, also `npm start`),
 * false in the production build (`node scripts/build.mjs --production`, used by `npm run package`).
 * Code behind `if (__RALPH_TEST__)` is dropped from the production bundle. Only modules that run in
 * the extension host read it (the unit tests run src/ with tsx, where it is not defined).
 */
declare const __RALPH_TEST__: boolean;
