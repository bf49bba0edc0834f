import pg from "pg";

// One pool for the whole API process. Tests point DATABASE_URL at taskflow_test.
export const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL ?? "postgres://localhost:5432/taskflow_dev",
});

export type Queryable = Pick<pg.Pool, "query">;
