/** @type {import('tailwindcss').Config} */
export default {
  // The scanner only sees complete class names in these files; never build them with `${}`.
  content: ["./src/web/**/*.{html,tsx,ts}"],
  theme: { extend: {} },
  plugins: [],
};
