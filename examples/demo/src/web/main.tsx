import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { createBrowserRouter, Navigate, RouterProvider } from "react-router-dom";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { TaskList } from "./pages/TaskList";
import { Dashboard } from "./pages/Dashboard";
import "./index.css";

const queryClient = new QueryClient({ defaultOptions: { queries: { staleTime: 30_000 } } });

const router = createBrowserRouter([
  { path: "/", element: <Navigate to="/projects/1/tasks" replace /> },
  { path: "/projects/:projectId/tasks", element: <TaskList /> },
  { path: "/projects/:projectId/dashboard", element: <Dashboard /> },
]);

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
);
