import { useState } from 'react';

/** A stylised product (a sneaker) drawn in SVG, so the page needs no downloaded images. */
function Product() {
  return (
    <g>
      <ellipse cx="200" cy="228" rx="120" ry="10" fill="rgb(15 23 42 / 14%)" />
      <path d="M95 200 C 100 150, 150 140, 180 120 L 215 125 C 230 150, 265 165, 300 170 C 320 175, 320 205, 300 210 L 100 212 Z" fill="#dc2626" />
      <path d="M92 205 L 312 205 L 310 222 L 94 222 Z" fill="#f8fafc" stroke="#cbd5e1" />
      <path d="M185 135 L 200 160 M 198 130 L 212 157 M 210 130 L 224 155" stroke="#fff" strokeWidth="4" strokeLinecap="round" />
    </g>
  );
}

/** Before/after comparison ('Trascina il cursore'). Loaded lazily by the landing page. */
export default function BeforeAfterSlider() {
  const [position, setPosition] = useState(50);
  return (
    <figure className="ba">
      <div className="ba-stage">
        <svg viewBox="0 0 400 260" className="ba-img" role="img" aria-label="Foto originale: prodotto su sfondo disordinato e scuro">
          <rect width="400" height="260" fill="#57534e" />
          <rect x="0" y="170" width="400" height="90" fill="#78716c" />
          <circle cx="330" cy="60" r="40" fill="#a8a29e" opacity="0.6" />
          <rect x="30" y="40" width="70" height="90" fill="#44403c" />
          <g opacity="0.75">
            <Product />
          </g>
        </svg>
        <div className="ba-after" style={{ clipPath: `inset(0 0 0 ${position}%)` }}>
          <svg viewBox="0 0 400 260" className="ba-img" role="img" aria-label="Foto elaborata: prodotto su sfondo bianco con ombra naturale">
            <rect width="400" height="260" fill="#ffffff" />
            <Product />
          </svg>
        </div>
        <div className="ba-handle" style={{ left: `${position}%` }} aria-hidden="true" />
        <span className="ba-tag ba-tag-before">Prima</span>
        <span className="ba-tag ba-tag-after">Dopo</span>
      </div>
      <label className="ba-control">
        <span>Trascina il cursore</span>
        <input type="range" min={0} max={100} value={position} onChange={(e) => setPosition(Number(e.target.value))} />
      </label>
    </figure>
  );
}
