import type { Photo, Profile } from '@/types/api';

export function makeProfile(overrides: Partial<Profile> = {}): Profile {
  return {
    id: 'u1',
    email: 'mario@example.com',
    first_name: 'Mario',
    last_name: 'Rossi',
    user_role: 'client',
    credits_remaining: 15,
    credits_expiry_date: null,
    is_active: true,
    created_at: '2025-01-01T10:00:00Z',
    ...overrides,
  };
}

export function makePhoto(overrides: Partial<Photo> = {}, jobOverrides: Partial<Photo['jobs'][number]> | null = {}): Photo {
  return {
    id: 'p1',
    original_filename: 'IMG_0001.jpg',
    file_size: 204800,
    file_format: 'image/jpeg',
    status: 'processed',
    created_at: new Date(Date.now() - 5 * 60_000).toISOString(),
    processed_path: 'u1/processed.jpg',
    jobs:
      jobOverrides === null
        ? []
        : [
            {
              id: 'j1',
              job_type: 'background_removal',
              status: 'completed',
              progress_percentage: 100,
              error_message: null,
              processing_details: {
                seo_filename: 'nike-scarpa-running-rossa.jpg',
                brand: 'Nike',
                category: 'Scarpe',
                colors: [
                  { hex: '#ff0000', name: 'rosso' },
                  { hex: '#ffffff', name: 'bianco' },
                  { hex: '#000000', name: 'nero' },
                  { hex: '#cccccc', name: 'grigio' },
                  { hex: '#0000ff', name: 'blu' },
                ],
              },
              created_at: '2025-01-01T10:00:00Z',
              completed_at: '2025-01-01T10:01:00Z',
              ...jobOverrides,
            },
          ],
    ...overrides,
  };
}
