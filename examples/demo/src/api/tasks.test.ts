import { beforeEach, describe, expect, it } from "vitest";
import request from "supertest";
import { createApp } from "./server";
import { pool } from "./db";

const app = createApp();
const as = (userId: number) => ({ "x-test-user": String(userId) });

beforeEach(async () => {
  await pool.query("TRUNCATE tasks, audit_log, notifications RESTART IDENTITY CASCADE");
  await pool.query(
    `INSERT INTO tasks (project_id, title, priority) VALUES (1, 'Write release notes', 'high'), (1, 'Tidy backlog', DEFAULT)`,
  );
});

describe("GET /api/tasks", () => {
  it("returns the priority of every task, medium by default", async () => {
    const res = await request(app).get("/api/tasks?projectId=1").set(as(1));
    expect(res.status).toBe(200);
    expect(res.body.map((t: { priority: string }) => t.priority)).toEqual(["high", "medium"]);
  });
});

describe("PATCH /api/tasks/:id", () => {
  it("updates the priority", async () => {
    const res = await request(app).patch("/api/tasks/2").set(as(1)).send({ priority: "low" });
    expect(res.status).toBe(200);
    expect(res.body.priority).toBe("low");
  });

  it("rejects an unknown priority with 400", async () => {
    const res = await request(app).patch("/api/tasks/2").set(as(1)).send({ priority: "urgent" });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("invalid_task_patch");
  });
});
