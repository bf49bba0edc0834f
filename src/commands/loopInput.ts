/** The quick inputs a loop asks for before it starts (Start Loop…, Start Parallel Loop…). */
import * as vscode from 'vscode';

/** A whole number from `min` to `max`, or undefined when the user cancelled. */
export async function askCount(options: { title: string; prompt: string; value: number; min?: number; max?: number }): Promise<number | undefined> {
  const min = options.min ?? 1;
  const max = options.max ?? 1000;
  const input = await vscode.window.showInputBox({
    title: options.title,
    prompt: options.prompt,
    value: String(options.value),
    validateInput: (v) => (/^\d+$/.test(v.trim()) && Number(v) >= min && Number(v) <= max ? undefined : `A whole number from ${min} to ${max}`),
  });
  return input === undefined ? undefined : Number(input.trim());
}

/** How many iterations at most: Start Loop… and Start Parallel Loop… ask the same question. */
export function askMaxIterations(title: string, value: number): Promise<number | undefined> {
  return askCount({
    title,
    prompt: 'How many iterations at most? The loop also stops when every story passes, when nothing is ready, or when no progress is made.',
    value,
  });
}
