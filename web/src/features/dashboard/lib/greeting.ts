/** Greeting by time of day (SPEC §2 /dashboard): before 12, before 18, else. */
export function greeting(date: Date = new Date()): 'Buongiorno' | 'Buon pomeriggio' | 'Buonasera' {
  const h = date.getHours();
  if (h < 12) return 'Buongiorno';
  if (h < 18) return 'Buon pomeriggio';
  return 'Buonasera';
}
