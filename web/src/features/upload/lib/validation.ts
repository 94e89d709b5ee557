import type { AppConfig } from '@/types/api';

const MB = 1024 * 1024;

/** One batch's limits as the upload page shows and checks them (the server's `batch_limits`). */
export interface UploadLimits {
  maxFiles: number;
  maxTotalBytes: number;
  /** `maxTotalBytes` in whole MB (1 MB = 1024² bytes), as the page shows it. */
  maxTotalMb: number;
  label: '(Limite admin)' | '(Limite standard)';
}

/** The batch limits of an admin or of everyone else from `GET /api/config` (`null` while it loads). */
export function uploadLimits(config: Pick<AppConfig, 'batch_limits'> | undefined, admin: boolean): UploadLimits | null {
  const limits = config?.batch_limits[admin ? 'admin' : 'standard'];
  if (!limits) return null;
  return {
    maxFiles: limits.max_files,
    maxTotalBytes: limits.max_bytes,
    maxTotalMb: Math.floor(limits.max_bytes / MB),
    label: admin ? '(Limite admin)' : '(Limite standard)',
  };
}

export interface UploadIssue {
  title: string;
  description: string;
}

export interface BatchCheck {
  /** Files to add to the list (empty when the batch is refused). */
  accepted: File[];
  /** Files that are not images: listed by name with the reason, never sent. */
  ignored: File[];
  /** Toasts to show, in order. */
  issues: UploadIssue[];
}

/** SPEC §5 client upload: the reason a non-image is ignored. */
export const NOT_AN_IMAGE = 'Solo le immagini sono supportate';

/** "a.txt, b.pdf: Solo le immagini sono supportate" — which files a notice is about, by name. */
export function namedIssue(names: string[], reason: string): string {
  return `${names.join(', ')}: ${reason}`;
}

/**
 * Client-side checks before files join the upload list (SPEC §5 'Client upload', limits of §9).
 * Non-images are listed by name with the reason and never sent; too many files or too many bytes refuse
 * the whole selection.
 *
 * @param files the newly chosen files
 * @param listed files already waiting in the list (they go up in the same request)
 * @param listedBytes total size of those waiting files
 */
/** Camera RAW and HEIC files, which browsers often report with an empty type (the server accepts them). */
const CAMERA_EXTENSIONS = ['.cr2', '.nef', '.arw', '.dng', '.heic', '.heif'];

/** SPEC §5: files whose type starts with image/ (plus camera RAW/HEIC files without a type). */
export function isImageFile(file: File): boolean {
  if (file.type.startsWith('image/')) return true;
  const name = file.name.toLowerCase();
  return (file.type === '' || file.type === 'application/octet-stream') && CAMERA_EXTENSIONS.some((ext) => name.endsWith(ext));
}

/** How many leading bytes {@link hasImageSignature} reads. */
const SIGNATURE_BYTES = 16;

const ascii = (bytes: Uint8Array, from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to));
const startsWith = (bytes: Uint8Array, magic: number[]) => magic.every((b, i) => bytes[i] === b);

/**
 * Whether the file's first bytes are those of an image format the server takes (the magic bytes
 * `api/uploads.py: _kind` checks: JPEG, PNG, GIF, BMP, WebP, HEIC/HEIF, AVIF, TIFF and TIFF-based or
 * other camera RAW). A text file renamed `.jpg` fails here, before it is listed or counted in the cost;
 * the server still decides (it also decodes the header).
 */
export function imageSignature(head: Uint8Array): boolean {
  if (startsWith(head, [0xff, 0xd8, 0xff]) || startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return true;
  const start = ascii(head, 0, 16);
  if (start.startsWith('GIF87a') || start.startsWith('GIF89a') || start.startsWith('BM')) return true;
  if (start.startsWith('RIFF') && ascii(head, 8, 12) === 'WEBP') return true;
  if (ascii(head, 4, 8) === 'ftyp' && ['heic', 'heix', 'hevc', 'hevx', 'heim', 'heis', 'mif1', 'msf1', 'avif', 'avis'].includes(ascii(head, 8, 12))) return true;
  if (start.startsWith('II*\u0000') || start.startsWith('MM\u0000*')) return true;
  return ['FUJIFILMCCD-RAW', '\u0000MRM', 'IIRO', 'IIRS', 'IIU\u0000', 'FOVb'].some((m) => start.startsWith(m));
}

/** The first bytes of a file (`Blob.arrayBuffer`, else a `FileReader`). */
async function headOf(file: File): Promise<Uint8Array> {
  const part = file.slice(0, SIGNATURE_BYTES);
  if (typeof part.arrayBuffer === 'function') return new Uint8Array(await part.arrayBuffer());
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(new Uint8Array(reader.result as ArrayBuffer));
    reader.onerror = () => reject(reader.error);
    reader.readAsArrayBuffer(part);
  });
}

/** {@link imageSignature} of a chosen file; an unreadable file counts as not an image. */
export async function hasImageSignature(file: File): Promise<boolean> {
  try {
    return imageSignature(await headOf(file));
  } catch {
    return false;
  }
}

/**
 * The chosen files whose content is not an image by its magic bytes ({@link hasImageSignature}), read
 * only for files {@link isImageFile} takes by type. Pass the result to {@link checkBatch}.
 */
export async function filesWithoutImageContent(files: File[]): Promise<Set<File>> {
  const checks = await Promise.all(files.map(async (f) => (isImageFile(f) ? !(await hasImageSignature(f)) : false)));
  return new Set(files.filter((_, i) => checks[i]));
}

/**
 * @param notImages files whose bytes are not an image ({@link filesWithoutImageContent}): ignored like
 *   non-images, by name with the reason, never sent nor counted.
 */
export function checkBatch(files: File[], listed: number, listedBytes: number, limits: UploadLimits, notImages: Set<File> = new Set()): BatchCheck {
  const issues: UploadIssue[] = [];
  const isImage = (f: File) => isImageFile(f) && !notImages.has(f);
  const images = files.filter(isImage);
  const ignored = files.filter((f) => !isImage(f));
  if (ignored.length > 0) {
    issues.push({ title: 'Alcuni file ignorati', description: namedIssue(ignored.map((f) => f.name), NOT_AN_IMAGE) });
  }
  if (images.length === 0) return { accepted: [], ignored, issues };
  if (listed + images.length > limits.maxFiles) {
    issues.push({
      title: 'Troppi file',
      description: `Puoi caricare al massimo ${limits.maxFiles} foto alla volta ${limits.label}`,
    });
    return { accepted: [], ignored, issues };
  }
  const bytes = images.reduce((sum, f) => sum + f.size, 0);
  if (listedBytes + bytes > limits.maxTotalBytes) {
    issues.push({ title: 'Batch troppo grande', description: `La dimensione totale non può superare ${limits.maxTotalMb}MB` });
    return { accepted: [], ignored, issues };
  }
  return { accepted: images, ignored, issues };
}

/** Estimated minutes for a batch: 0.5 minutes per photo, rounded up (SPEC §9). */
export function estimatedMinutes(count: number): number {
  return Math.ceil(count * 0.5);
}
