import type { HTMLAttributes, ReactNode } from 'react';

export function Card({ className = '', ...props }: HTMLAttributes<HTMLDivElement>) {
  return <div className={`card ${className}`} {...props} />;
}

export function CardHeader({ title, description, children, level = 2 }: { title: ReactNode; description?: ReactNode; children?: ReactNode; level?: 2 | 3 }) {
  const H = level === 2 ? 'h2' : 'h3';
  return (
    <div className="card-header">
      <H className="card-title">{title}</H>
      {description ? <p className="card-description">{description}</p> : null}
      {children}
    </div>
  );
}
