// ESLint for the web app: typescript-eslint, React hooks, and import boundaries
// between features as bulletproof-react draws them (apps/react-vite/.eslintrc.cjs).
import js from '@eslint/js';
import importX from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { readdirSync } from 'node:fs';

/** Every folder of src/features: each may import only itself (and the shared folders). */
const FEATURES = readdirSync(new URL('./src/features', import.meta.url), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);

/** A feature imports only itself: src/features/photos may not reach into src/features/upload. */
const featureZones = FEATURES.map((name) => ({
  target: `./src/features/${name}`,
  from: './src/features',
  except: [`./${name}`],
  message: 'a feature does not import another feature: move shared code to components/, lib/ or types/',
}));
/** One direction: app → features → shared folders. */
const appZone = { target: './src/features', from: './src/app' };
const sharedZones = [
  {
    target: ['./src/components', './src/config', './src/lib', './src/stores', './src/types'],
    from: ['./src/features', './src/app'],
  },
];

export default tseslint.config(
  { ignores: ['dist', 'dev-dist', 'coverage', 'node_modules', 'src/types/openapi.gen.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['src/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks, 'import-x': importX },
    settings: {
      'import-x/resolver': { typescript: { project: './tsconfig.json' } },
    },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'react-hooks/exhaustive-deps': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'import-x/no-cycle': 'error',
      'import-x/no-restricted-paths': ['error', { zones: [...featureZones, appZone, ...sharedZones] }],
      // a feature's public surface is its index.ts (inside a feature, relative imports)
      'no-restricted-imports': ['error', { patterns: [{ group: ['@/features/*/*'], message: 'import a feature through its index.ts' }] }],
    },
  },
  {
    // the tests' helpers and set-up; a page's test may drive it through the app's real router
    files: ['src/**/*.test.{ts,tsx}', 'src/test/**'],
    languageOptions: { globals: { ...globals.browser, ...globals.node, ...globals.vitest } },
    rules: { 'import-x/no-restricted-paths': ['error', { zones: [...featureZones, ...sharedZones] }] },
  },
  {
    files: ['*.{js,ts}', 'scripts/**', 'e2e/**'],
    languageOptions: { globals: { ...globals.node } },
  },
);
