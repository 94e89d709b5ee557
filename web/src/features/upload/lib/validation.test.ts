import { TEST_CONFIG } from '@/test/fixtures';
import { checkBatch, estimatedMinutes, filesWithoutImageContent, imageSignature, isImageFile, uploadLimits } from './validation';

const STANDARD = uploadLimits(TEST_CONFIG, false)!;
const ADMIN = uploadLimits(TEST_CONFIG, true)!;

const MB = 1024 * 1024;
function file(name: string, type: string, size = 1000): File {
  const f = new File(['x'], name, { type });
  Object.defineProperty(f, 'size', { value: size });
  return f;
}
const images = (n: number, size = 1000) => Array.from({ length: n }, (_, i) => file(`f${i}.jpg`, 'image/jpeg', size));

describe('upload batch checks (SPEC §5, limits §9)', () => {
  it("takes the limits from the server's config (none while it loads)", () => {
    expect(STANDARD).toEqual({ maxFiles: 10, maxTotalBytes: 100 * MB, maxTotalMb: 100, label: '(Limite standard)' });
    expect(ADMIN).toEqual({ maxFiles: 25, maxTotalBytes: 250 * MB, maxTotalMb: 250, label: '(Limite admin)' });
    expect(uploadLimits(undefined, false)).toBeNull();
  });

  it('accepts images within the standard limits', () => {
    const r = checkBatch(images(10), 0, 0, STANDARD);
    expect(r.accepted).toHaveLength(10);
    expect(r.issues).toEqual([]);
  });

  it('keeps the images and names each non-image with the reason', () => {
    const r = checkBatch([file('a.jpg', 'image/jpeg'), file('doc.pdf', 'application/pdf'), file('note.txt', 'text/plain')], 0, 0, STANDARD);
    expect(r.accepted.map((f) => f.name)).toEqual(['a.jpg']);
    expect(r.ignored.map((f) => f.name)).toEqual(['doc.pdf', 'note.txt']);
    expect(r.issues).toEqual([{ title: 'Alcuni file ignorati', description: 'doc.pdf, note.txt: Solo le immagini sono supportate' }]);
  });

  it('refuses more than 10 files including those already listed (standard)', () => {
    const r = checkBatch(images(3), 8, 0, STANDARD);
    expect(r.accepted).toEqual([]);
    expect(r.issues).toEqual([{ title: 'Troppi file', description: 'Puoi caricare al massimo 10 foto alla volta (Limite standard)' }]);
  });

  it('lets admins add up to 25 files', () => {
    expect(checkBatch(images(25), 0, 0, ADMIN).accepted).toHaveLength(25);
    const r = checkBatch(images(26), 0, 0, ADMIN);
    expect(r.issues[0]).toEqual({ title: 'Troppi file', description: 'Puoi caricare al massimo 25 foto alla volta (Limite admin)' });
  });

  it('refuses batches above 100 MB (standard) and 250 MB (admin)', () => {
    const big = images(2, 60 * MB);
    expect(checkBatch(big, 0, 0, STANDARD).issues).toEqual([
      { title: 'Batch troppo grande', description: 'La dimensione totale non può superare 100MB' },
    ]);
    expect(checkBatch(big, 0, 0, ADMIN).accepted).toHaveLength(2);
    expect(checkBatch(images(1, 10 * MB), 1, 245 * MB, ADMIN).issues[0].description).toBe(
      'La dimensione totale non può superare 250MB',
    );
  });

  it('estimates half a minute per photo, rounded up', () => {
    expect(estimatedMinutes(1)).toBe(1);
    expect(estimatedMinutes(6)).toBe(3);
    expect(estimatedMinutes(7)).toBe(4);
  });
});

describe('camera files', () => {
  it('accepts RAW and HEIC files that the browser reports without a type', () => {
    expect(isImageFile(new File(['x'], 'IMG_0001.CR2', { type: '' }))).toBe(true);
    expect(isImageFile(new File(['x'], 'foto.heic', { type: 'application/octet-stream' }))).toBe(true);
    expect(isImageFile(new File(['x'], 'listino.pdf', { type: 'application/pdf' }))).toBe(false);
    expect(isImageFile(new File(['x'], 'note.txt', { type: '' }))).toBe(false);
  });
});

describe('content check by magic bytes', () => {
  it('knows the image formats the server takes and refuses text', () => {
    const bytes = (...parts: (number[] | string)[]) =>
      new Uint8Array(parts.flatMap((p) => (typeof p === 'string' ? [...p].map((c) => c.charCodeAt(0)) : p)).concat(Array(16).fill(0)).slice(0, 16));
    expect(imageSignature(bytes([0xff, 0xd8, 0xff, 0xe0]))).toBe(true);
    expect(imageSignature(bytes([0x89], 'PNG', [0x0d, 0x0a, 0x1a, 0x0a]))).toBe(true);
    expect(imageSignature(bytes('RIFF', [1, 2, 3, 4], 'WEBP'))).toBe(true);
    expect(imageSignature(bytes([0, 0, 0, 24], 'ftypheic'))).toBe(true);
    expect(imageSignature(bytes([0, 0, 0, 24], 'ftypavif'))).toBe(true);
    expect(imageSignature(bytes('GIF89a'))).toBe(true);
    expect(imageSignature(bytes('II*', [0]))).toBe(true);
    expect(imageSignature(bytes('non sono una foto'))).toBe(false);
    expect(imageSignature(bytes('RIFF', [1, 2, 3, 4], 'WAVE'))).toBe(false);
    expect(imageSignature(bytes([0, 0, 0, 24], 'ftypisom'))).toBe(false); // an MP4 video
  });

  it('reads the chosen files and ignores the renamed text file like a non-image', async () => {
    const photo = new File([new Uint8Array([0xff, 0xd8, 0xff, 0xe1, 0, 0]), 'x'], 'scarpa.jpg', { type: 'image/jpeg' });
    const text = new File(['solo testo rinominato'], 'appunti.jpg', { type: 'image/jpeg' });
    const notImages = await filesWithoutImageContent([photo, text]);
    expect([...notImages].map((f) => f.name)).toEqual(['appunti.jpg']);
    const check = checkBatch([photo, text], 0, 0, STANDARD, notImages);
    expect(check.accepted.map((f) => f.name)).toEqual(['scarpa.jpg']);
    expect(check.issues[0].description).toBe('appunti.jpg: Solo le immagini sono supportate');
  });
});
