import { imageSize } from 'image-size';
import { imageStructureProblem } from './image-structure.js';
import { ASSET_IMAGE_TYPES, ASSET_VIDEO_TYPES } from './media-types.js';

// Loaded on the first upload, not at start-up: both are large and only uploads use them.
let fileType: Promise<typeof import('file-type')> | undefined;
let mediabunny: Promise<typeof import('mediabunny')> | undefined;
import { ServiceError } from '../platform/service-error.js';

export { ASSET_IMAGE_TYPES, ASSET_VIDEO_TYPES } from './media-types.js';
export const MAX_VIDEO_SECONDS = 60;

export interface MediaInfo {
  kind: 'image' | 'video';
  contentType: string;
  width?: number;
  height?: number;
  durationSeconds?: number;
}

/** The MIME type the bytes carry, judged by their content only; undefined when unknown. */
export async function sniffType(bytes: Uint8Array): Promise<string | undefined> {
  if (bytes.byteLength === 0) return undefined;
  try {
    fileType ??= import('file-type');
    const { fileTypeFromBuffer } = await fileType;
    return (await fileTypeFromBuffer(bytes))?.mime;
  } catch {
    return undefined;
  }
}

// A PNG's last chunk is IEND: its type and fixed CRC. A file cut short never has it.
const PNG_END = Buffer.from([0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82]);

/**
 * Width and height of an image, or undefined when its header cannot be read (or, for
 * a PNG, when its end is missing: a cut-off upload still has a readable header).
 */
export function readImageSize(bytes: Uint8Array, type?: string): { width: number; height: number } | undefined {
  if (type === 'image/png' && Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(PNG_END) === -1) return undefined;
  try {
    const { width, height } = imageSize(bytes);
    return width > 0 && height > 0 ? { width, height } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The picture size and length (seconds, ms precision) of a video, read from its
 * container by mediabunny: music-metadata 11 takes an MP4's duration from its audio
 * tracks only, so a silent clip would have none and one whose sound is shorter than
 * its picture would look shorter than it is. `undefined` when there is no picture.
 */
async function readVideo(bytes: Uint8Array): Promise<{ seconds: number | undefined; width: number; height: number } | undefined> {
  mediabunny ??= import('mediabunny');
  const { BufferSource, Input, MP4, WEBM } = await mediabunny;
  // Only the two containers an asset may be: the sniffer already said which one.
  const input = new Input({ source: new BufferSource(bytes), formats: [MP4, WEBM] });
  try {
    const track = await input.getPrimaryVideoTrack();
    if (!track) return undefined;
    const seconds = await input.computeDuration();
    return {
      seconds: Number.isFinite(seconds) && seconds > 0 ? Math.round(seconds * 1000) / 1000 : undefined,
      width: track.displayWidth,
      height: track.displayHeight,
    };
  } catch {
    return undefined;
  } finally {
    input.dispose();
  }
}

function unsupported(reason: string, en: string, es: string): ServiceError {
  return new ServiceError('svc.asset.format_unsupported', { detail: { en, es }, errors: [{ field: 'file', reason }] });
}

/**
 * What an uploaded file is, judged by its bytes, never by its name or declared type:
 * PNG, JPEG, WebP, GIF or AVIF that decodes whole (`imageStructureProblem`), or MP4 or WebM with a picture
 * and a readable duration of at most 60 seconds. Anything else throws
 * `415 svc.asset.format_unsupported`; a longer video `422 svc.asset.video_too_long`.
 * Runs in a worker thread (`media.worker.ts`): decoding grows with the file.
 */
export async function inspectMedia(bytes: Uint8Array): Promise<MediaInfo> {
  const type = await sniffType(bytes);
  if (type && ASSET_IMAGE_TYPES.includes(type)) {
    const size = readImageSize(bytes, type);
    if (!size)
      throw unsupported(
        'image size unreadable',
        'The image size cannot be read; the file is damaged or truncated.',
        'No se puede leer el tamaño de la imagen; el archivo está dañado o incompleto.',
      );
    const problem = await imageStructureProblem(bytes, type, size);
    if (problem) throw unsupported(problem, `The file is not a complete image: ${problem}.`, `El archivo no es una imagen completa: ${problem}.`);
    return { kind: 'image', contentType: type, ...size };
  }
  if (type && ASSET_VIDEO_TYPES.includes(type)) {
    const video = await readVideo(bytes);
    if (!video) throw unsupported('no readable video track', 'The file has no readable video track.', 'El archivo no tiene una pista de vídeo legible.');
    if (video.seconds === undefined)
      throw unsupported('video duration unreadable', 'The video duration cannot be read.', 'No se puede leer la duración del vídeo.');
    if (video.seconds > MAX_VIDEO_SECONDS) {
      throw new ServiceError('svc.asset.video_too_long', {
        detail: {
          en: `The video lasts ${video.seconds} s; at most ${MAX_VIDEO_SECONDS} s are accepted.`,
          es: `El vídeo dura ${video.seconds} s; se aceptan como máximo ${MAX_VIDEO_SECONDS} s.`,
        },
        errors: [{ field: 'file', reason: `longer than ${MAX_VIDEO_SECONDS} seconds`, durationSeconds: video.seconds }],
      });
    }
    return {
      kind: 'video',
      contentType: type,
      durationSeconds: video.seconds,
      ...(video.width > 0 && video.height > 0 && { width: video.width, height: video.height }),
    };
  }
  throw unsupported(
    'not a PNG, JPEG, WebP, GIF or AVIF image, nor an MP4 or WebM video',
    'The bytes are not a PNG, JPEG, WebP, GIF or AVIF image, nor an MP4 or WebM video.',
    'Los bytes no son una imagen PNG, JPEG, WebP, GIF o AVIF, ni un vídeo MP4 o WebM.',
  );
}
