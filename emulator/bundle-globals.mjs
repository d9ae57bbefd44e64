// Injected into the bundle in place of the global `queueMicrotask` (emulator/bundle.mjs):
// a test's fake timers replace that global (Jest's by default), and p-queue, bundled,
// schedules its next task with it, so every queue after its first task stood still
// (decisions, D-1230). A promise job runs at the same point and no fake timer replaces it.
export const queueMicrotask = (callback) => {
  Promise.resolve().then(callback);
};
