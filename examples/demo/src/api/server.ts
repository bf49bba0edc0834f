import express from "express";
import { tasksRouter } from "./tasks";
import { currentUser } from "./auth";

export function createApp() {
  const app = express();
  app.use(express.json());
  app.use(currentUser); // sets req.userId from the session cookie; must run before the routers
  app.use("/api/tasks", tasksRouter);

  app.use((err: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    console.error(err);
    res.status(500).json({ error: "internal_error" });
  });
  return app;
}

if (process.env.NODE_ENV !== "test") {
  const port = Number(process.env.PORT ?? 4000);
  createApp().listen(port, () => console.log(`TaskFlow API on http://localhost:${port}`));
}
