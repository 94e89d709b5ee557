import type { UploadLimits } from '@/config/constants';

export interface UploadIssue {
  title: string;
  description: string;
}

export interface BatchCheck {
  /** Files to add to the list (empty when the batch is refused). */
  accepted: File[];
  /** Toasts to show, in order. */
  issues: UploadIssue[];
}

/**
 * Client-side checks before files join the upload list (SPEC §5 'Client upload', limits of §9).
 * Non-images are dropped with a notice; too many files or too many bytes refuse the whole selection.
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

export function checkBatch(files: File[], listed: number, listedBytes: number, limits: UploadLimits): BatchCheck {
  const issues: UploadIssue[] = [];
  const images = files.filter(isImageFile);
  if (images.length < files.length) {
    issues.push({ title: 'Alcuni file ignorati', description: 'Solo le immagini sono supportate' });
  }
  if (images.length === 0) return { accepted: [], issues };
  if (listed + images.length > limits.maxFiles) {
    issues.push({
      title: 'Troppi file',
      description: `Puoi caricare al massimo ${limits.maxFiles} foto alla volta ${limits.label}`,
    });
    return { accepted: [], issues };
  }
  const bytes = images.reduce((sum, f) => sum + f.size, 0);
  if (listedBytes + bytes > limits.maxTotalBytes) {
    issues.push({ title: 'Batch troppo grande', description: `La dimensione totale non può superare ${limits.maxTotalMb}MB` });
    return { accepted: [], issues };
  }
  return { accepted: images, issues };
}

/** Estimated minutes for a batch: 0.5 minutes per photo, rounded up (SPEC §9). */
export function estimatedMinutes(count: number): number {
  return Math.ceil(count * 0.5);
}
