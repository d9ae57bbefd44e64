// Kept apart from the decoders that judge them (`media.ts`), which load in the worker.

/** Image formats an asset may be (CONTRACT, Assets), as the sniffer names them. */
export const ASSET_IMAGE_TYPES: readonly string[] = ['image/png', 'image/jpeg', 'image/webp', 'image/gif', 'image/avif'];
export const ASSET_VIDEO_TYPES: readonly string[] = ['video/mp4', 'video/webm'];
