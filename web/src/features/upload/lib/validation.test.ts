import { TEST_CONFIG } from '@/test/fixtures';
import { checkBatch, estimatedMinutes, isImageFile, uploadLimits } from './validation';

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
