import type { NextFunction, Request, Response } from "express";

declare module "express-serve-static-core" {
  interface Request {
    userId?: number;
  }
}

// Minimal session lookup. In tests, send the `x-test-user` header instead of a cookie.
export function currentUser(req: Request, res: Response, next: NextFunction) {
  const fromHeader = process.env.NODE_ENV === "test" ? req.header("x-test-user") : undefined;
  const id = Number(fromHeader ?? req.header("x-session-user"));
  if (!Number.isInteger(id) || id <= 0) {
    res.status(401).json({ error: "unauthenticated" });
    return;
  }
  req.userId = id;
  next();
}
