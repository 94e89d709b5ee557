import { useState } from 'react';

/**
 * Calls `onChange` during render when one of `deps` differs (`Object.is`) from the previous render's,
 * and on the first render: React's way to adjust state when a prop or other state changes
 * (react.dev, "You Might Not Need an Effect"), without the extra render and stale request of a
 * `useEffect(() => setState(…), deps)`. `onChange` may only set this component's state.
 */
export function useOnChange(deps: readonly unknown[], onChange: () => void): void {
  const [seen, setSeen] = useState<readonly unknown[] | null>(null);
  if (seen === null || seen.length !== deps.length || deps.some((d, i) => !Object.is(d, seen[i]))) {
    setSeen(deps);
    onChange();
  }
}
