/** The store could not be opened: a line naming where it points, never a password. */
export class StoreOpenError extends Error {}
