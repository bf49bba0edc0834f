import { defineConfig } from "vitest/config";
import { fileURLToPath } from "node:url";

export default defineConfig({
  resolve: {
    alias: { "@shared": fileURLToPath(new URL("./src/shared", import.meta.url)) },
  },
  test: {
    environment: "node",
    // API tests share one Postgres database (taskflow_test); run files one at a time.
    fileParallelism: false,
    env: { NODE_ENV: "test", DATABASE_URL: "postgres://localhost:5432/taskflow_test" },
  },
});
