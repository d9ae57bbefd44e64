import { createRequire } from 'node:module';

/**
 * Images are judged by their whole structure, not by their header: a GIF header
 * followed by HTML, a JPEG cut after its header or a PNG with a page appended is not
 * an image. Each format is decoded to its last pixel by a pure-JS decoder (PNG:
 * fast-png with CRCs; JPEG: jpeg-js, strict; GIF: omggif, every frame; WebP: libwebp
 * compiled to WebAssembly by jSquash; ICO: decode-ico), and must end where the format
 * says it ends.
 * Runs in a worker thread (`media.worker.ts`, `brand-file.worker.ts`).
 */

/** Pixels an image may have: decoding a bigger one needs more memory than a check deserves. */
export const MAX_IMAGE_PIXELS = 40_000_000;

const PNG_END = [0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82];

function endsWith(bytes: Uint8Array, tail: readonly number[]): boolean {
  if (bytes.length < tail.length) return false;
  const start = bytes.length - tail.length;
  return tail.every((b, i) => bytes[start + i] === b);
}

async function png(bytes: Uint8Array): Promise<string | undefined> {
  if (!endsWith(bytes, PNG_END)) return 'the PNG does not end with its IEND chunk';
  const { decode } = await import('fast-png');
  decode(bytes, { checkCrc: true });
  return undefined;
}

async function jpeg(bytes: Uint8Array): Promise<string | undefined> {
  // Some writers pad after the end-of-image marker; nothing else may follow it.
  let end = bytes.length;
  while (end > 2 && bytes[end - 1] === 0x00) end -= 1;
  if (bytes[end - 2] !== 0xff || bytes[end - 1] !== 0xd9) return 'the JPEG does not end with its end-of-image marker';
  const { decode } = (await import('jpeg-js')).default;
  decode(bytes, { useTArray: true, formatAsRGBA: false, tolerantDecoding: false, maxResolutionInMP: MAX_IMAGE_PIXELS / 1e6, maxMemoryUsageInMB: 512 });
  return undefined;
}

async function gif(bytes: Uint8Array): Promise<string | undefined> {
  if (bytes[bytes.length - 1] !== 0x3b) return 'the GIF does not end with its trailer';
  const { GifReader } = (await import('omggif')).default;
  const reader = new GifReader(bytes);
  const frames = reader.numFrames();
  if (frames === 0) return 'the GIF has no image';
  const pixels = new Uint8Array(reader.width * reader.height * 4);
  for (let i = 0; i < frames; i++) {
    const frame = reader.frameInfo(i);
    // A frame of no area draws nothing: an image of nothing but such frames shows nothing.
    if (frame.width === 0 || frame.height === 0) return 'a GIF frame has no pixels';
    if (frame.x + frame.width > reader.width || frame.y + frame.height > reader.height) return 'a GIF frame lies outside the image';
    reader.decodeAndBlitFrameRGBA(i, pixels);
  }
  return undefined;
}

let webpDecoder: Promise<(bytes: ArrayBuffer) => Promise<{ width: number; height: number }>> | undefined;

function loadWebp() {
  webpDecoder ??= (async () => {
    const { readFile } = await import('node:fs/promises');
    const decoder = await import('@jsquash/webp/decode.js');
    const wasm = createRequire(import.meta.url).resolve('@jsquash/webp/codec/dec/webp_dec.wasm');
    // The project's `lib` has no DOM types; Node has WebAssembly all the same.
    const { WebAssembly: wa } = globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<unknown> } };
    await decoder.init((await wa.compile(await readFile(wasm))) as Parameters<typeof decoder.init>[0]);
    return decoder.default;
  })();
  return webpDecoder;
}

async function webp(bytes: Uint8Array): Promise<string | undefined> {
  // RIFF: "RIFF", the length of what follows (padded to even), "WEBP".
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const declared = bytes.length >= 12 ? view.getUint32(4, true) + 8 : -1;
  if (declared !== bytes.length && declared + 1 !== bytes.length) return 'the WebP length does not match its RIFF header';
  const decode = await loadWebp();
  await decode(bytes.slice().buffer);
  return undefined;
}

// AVIF has no pure-JS decoder worth the name: its ISO-BMFF boxes must at least tile
// the file exactly, from `ftyp` to the end, with the image's `meta` and `mdat`.
function avif(bytes: Uint8Array): string | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const seen = new Set<string>();
  let offset = 0;
  while (offset < bytes.length) {
    if (offset + 8 > bytes.length) return 'the AVIF ends inside a box header';
    let size = view.getUint32(offset);
    const type = String.fromCharCode(...bytes.subarray(offset + 4, offset + 8));
    if (size === 1) {
      if (offset + 16 > bytes.length) return 'the AVIF ends inside a box header';
      size = Number(view.getBigUint64(offset + 8));
    } else if (size === 0) size = bytes.length - offset;
    if (size < 8 || offset + size > bytes.length) return `the AVIF box ${JSON.stringify(type)} runs past the end`;
    if (offset === 0 && type !== 'ftyp') return 'the AVIF does not start with its ftyp box';
    seen.add(type);
    offset += size;
  }
  return seen.has('meta') && seen.has('mdat') ? undefined : 'the AVIF has no image (meta and mdat boxes)';
}

/** The most pixels an image inside an ICO may have: its directory cannot describe more (D-1178). */
const ICO_SIDE = 256;

/**
 * An ICO (the favicon slot's): a directory of images, each a PNG or a bitmap without its
 * file header. The directory's entries must lie inside the file after it and the file
 * end where its last image ends; each image decodes whole (bitmaps with decode-ico's
 * decoder, PNGs as a PNG upload is judged), D-1178. A cursor (type 2) is no icon.
 */
async function ico(bytes: Uint8Array): Promise<string | undefined> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 6 || view.getUint16(0, true) !== 0 || view.getUint16(2, true) !== 1) return 'the ICO does not start with an icon directory';
  const count = view.getUint16(4, true);
  if (count === 0) return 'the ICO has no image';
  const first = 6 + 16 * count;
  if (first > bytes.length) return 'the ICO directory runs past the end';
  let end = first;
  for (let i = 0; i < count; i++) {
    const size = view.getUint32(6 + 16 * i + 8, true);
    const offset = view.getUint32(6 + 16 * i + 12, true);
    if (size === 0 || offset < first || offset + size > bytes.length) return 'an ICO image lies outside the file';
    // A bitmap's header gives its width and twice its height (the colour and the mask);
    // a bigger one than the directory can name would be decoded at its own size.
    const isPng = size >= 8 && view.getUint32(offset) === 0x89504e47;
    if (!isPng && (size < 40 || view.getUint32(offset + 4, true) > ICO_SIDE || view.getUint32(offset + 8, true) > 2 * ICO_SIDE)) {
      return `an ICO bitmap is not at most ${ICO_SIDE} by ${ICO_SIDE} pixels`;
    }
    end = Math.max(end, offset + size);
  }
  if (end !== bytes.length) return 'the ICO does not end where its last image ends';
  const decodeIco = (await import('decode-ico')).default;
  for (const image of decodeIco(bytes)) {
    if (image.type !== 'png') continue;
    const problem = await png(image.data);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * Why the bytes are not one complete image of `type` (a sniffed image MIME type), or
 * undefined when they are. `width` and `height` come from the header: an image of more
 * than `MAX_IMAGE_PIXELS` is refused before decoding.
 */
export async function imageStructureProblem(bytes: Uint8Array, type: string, size: { width: number; height: number }): Promise<string | undefined> {
  if (size.width * size.height > MAX_IMAGE_PIXELS) return `larger than ${MAX_IMAGE_PIXELS / 1e6} megapixels`;
  try {
    if (type === 'image/png') return await png(bytes);
    if (type === 'image/jpeg') return await jpeg(bytes);
    if (type === 'image/gif') return await gif(bytes);
    if (type === 'image/webp') return await webp(bytes);
    if (type === 'image/avif') return avif(bytes);
    if (type === 'image/x-icon') return await ico(bytes);
    return undefined;
  } catch (error) {
    if (error instanceof RangeError && error.name === 'BufferLimitError') throw error;
    return `the ${type.slice('image/'.length).toUpperCase()} data does not decode`;
  }
}
