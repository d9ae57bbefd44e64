import { imageStructureProblem } from '../assets/image-structure.js';
import { readImageSize, sniffType } from '../assets/media.js';
import { ServiceError } from '../platform/service-error.js';
import type { BrandSlot } from './brand.schema.js';

export const SVG_TYPE = 'image/svg+xml';
const RASTER = ['image/png', 'image/jpeg', 'image/webp'];

/** What each slot takes (CONTRACT, Brand): PNG, JPEG, WebP, SVG; the favicon also ICO. */
export const SLOT_TYPES: Record<BrandSlot, readonly string[]> = {
  logo: [...RASTER, SVG_TYPE],
  'logo-dark': [...RASTER, SVG_TYPE],
  favicon: [...RASTER, SVG_TYPE, 'image/x-icon'],
};

export const SLOT_FORMATS: Record<BrandSlot, string> = {
  logo: 'PNG, JPEG, WebP or SVG',
  'logo-dark': 'PNG, JPEG, WebP or SVG',
  favicon: 'PNG, JPEG, WebP, SVG or ICO',
};

function unsupported(slot: BrandSlot, why: string): ServiceError {
  return new ServiceError('svc.brand.format_unsupported', {
    detail: { en: `The ${slot} slot takes ${SLOT_FORMATS[slot]}: ${why}.`, es: `La posición ${slot} acepta ${SLOT_FORMATS[slot]}: ${why}.` },
    errors: [{ field: 'file', reason: `${why}; the ${slot} slot takes ${SLOT_FORMATS[slot]}` }],
  });
}

/**
 * The content type of a brand file, judged by its bytes: a raster image the slot
 * takes that decodes whole, or an SVG that passes the guard. Runs in a worker thread
 * (`brand-file.worker.ts`): both checks grow with the file. A format the slot
 * does not take is `415 svc.brand.format_unsupported`; an SVG that could run or fetch
 * anything is `400 svc.brand.svg_rejected` with one `errors` entry per reason.
 */
export async function inspectBrandFile(slot: BrandSlot, bytes: Uint8Array): Promise<string> {
  // Loaded on first use: the XML and CSS parsers are not needed to start (decisions, D-747).
  const { judgeSvg, looksLikeXml } = await import('./svg-guard.js');
  // Text first: a UTF-16 byte order mark (FF FE) would pass for an MP3 frame with a sniffer.
  if (!looksLikeXml(bytes)) {
    const type = await sniffType(bytes);
    if (!type) throw unsupported(slot, 'the file is not an image');
    if (!SLOT_TYPES[slot].includes(type)) throw unsupported(slot, `the file is ${type}`);
    const size = readImageSize(bytes, type);
    if (!size) throw unsupported(slot, 'the image cannot be read');
    const problem = await imageStructureProblem(bytes, type, size);
    if (problem) throw unsupported(slot, `the image is not complete (${problem})`);
    return type;
  }
  const verdict = judgeSvg(bytes);
  if (verdict.kind === 'unsafe') {
    throw new ServiceError('svc.brand.svg_rejected', {
      detail: {
        en: `The SVG was refused: ${verdict.errors.map((e) => e.reason).join(', ')}.`,
        es: `Se rechazó el SVG: ${verdict.errors.map((e) => e.reason).join(', ')}.`,
      },
      errors: verdict.errors,
    });
  }
  if (verdict.kind === 'unreadable') throw unsupported(slot, `not a readable SVG (${verdict.why})`);
  return SVG_TYPE;
}
