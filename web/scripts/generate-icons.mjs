// Generates the PWA icons in public/ (no downloads): a blue rounded square with a white camera lens.
// Run with `node scripts/generate-icons.mjs`; the outputs are committed.
import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

const BLUE = [29, 78, 216];
const WHITE = [255, 255, 255];

const crcTable = new Uint32Array(256).map((_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}
function png(size, pixel) {
  const raw = Buffer.alloc(size * (size * 4 + 1));
  const S = 4; // supersampling per axis
  for (let y = 0; y < size; y++) {
    raw[y * (size * 4 + 1)] = 0;
    for (let x = 0; x < size; x++) {
      let acc = [0, 0, 0, 0];
      for (let sy = 0; sy < S; sy++)
        for (let sx = 0; sx < S; sx++) {
          const p = pixel((x + (sx + 0.5) / S) / size, (y + (sy + 0.5) / S) / size);
          for (let i = 0; i < 4; i++) acc[i] += p[i];
        }
      const o = y * (size * 4 + 1) + 1 + x * 4;
      for (let i = 0; i < 4; i++) raw[o + i] = Math.round(acc[i] / (S * S));
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; ihdr[9] = 6; ihdr[10] = 0; ihdr[11] = 0; ihdr[12] = 0;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
function inRoundedRect(u, v, x0, y0, x1, y1, r) {
  const cx = Math.min(Math.max(u, x0 + r), x1 - r);
  const cy = Math.min(Math.max(v, y0 + r), y1 - r);
  return (u - cx) ** 2 + (v - cy) ** 2 <= r * r && u >= x0 && u <= x1 && v >= y0 && v <= y1;
}
/** Motif in unit coordinates, scaled by `k` around the centre (maskable icons need a safe zone). */
function motif(u, v, k) {
  const x = 0.5 + (u - 0.5) / k;
  const y = 0.5 + (v - 0.5) / k;
  const body = inRoundedRect(x, y, 0.2, 0.32, 0.8, 0.74, 0.06);
  const top = inRoundedRect(x, y, 0.38, 0.25, 0.62, 0.36, 0.03);
  const d = Math.hypot(x - 0.5, y - 0.53);
  const lensHole = d < 0.14 && d > 0.085;
  return (body || top) && !lensHole;
}
function icon(maskable) {
  return (u, v) => {
    const bg = maskable ? true : inRoundedRect(u, v, 0, 0, 1, 1, 0.2);
    if (!bg) return [0, 0, 0, 0];
    const k = maskable ? 0.75 : 1;
    const c = motif(u, v, k) ? WHITE : BLUE;
    return [...c, 255];
  };
}

writeFileSync('public/pwa-192x192.png', png(192, icon(false)));
writeFileSync('public/pwa-512x512.png', png(512, icon(false)));
writeFileSync('public/maskable-512x512.png', png(512, icon(true)));
writeFileSync('public/apple-touch-icon.png', png(180, icon(true)));
writeFileSync(
  'public/favicon.svg',
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">
  <rect width="100" height="100" rx="20" fill="#1d4ed8"/>
  <rect x="38" y="25" width="24" height="11" rx="3" fill="#fff"/>
  <rect x="20" y="32" width="60" height="42" rx="6" fill="#fff"/>
  <circle cx="50" cy="53" r="11.25" fill="none" stroke="#1d4ed8" stroke-width="5.5"/>
</svg>
`,
);
console.log('icons written to public/');
