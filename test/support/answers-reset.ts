// Global setup of the `api` test project: each run records its answers afresh.
import { rmSync } from 'node:fs';
import { ANSWERS_DIR } from './answers.js';

export default function resetAnswers(): void {
  rmSync(ANSWERS_DIR, { recursive: true, force: true });
}
