import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";
import { fileURLToPath } from "node:url";

// Keep the alias in sync with "paths" in tsconfig.json.
export default defineConfig({
  root: "src/web",
  plugins: [react()],
  resolve: {
    alias: { "@shared": fileURLToPath(new URL("./src/shared", import.meta.url)) },
  },
  server: { proxy: { "/api": "http://localhost:4000" } },
});
