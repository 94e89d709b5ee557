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

export function checkBatch(files: File[], listed: number, listedBytes: number, limits: UploadLimits): BatchCheck {
  const issues: UploadIssue[] = [];
  const images = files.filter(isImageFile);
  const ignored = files.filter((f) => !isImageFile(f));
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
