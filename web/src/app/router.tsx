import { lazy, Suspense, type ComponentType, type ReactNode } from 'react';
import { createBrowserRouter, Navigate, useLocation, type RouteObject } from 'react-router-dom';
import { ErrorBoundary } from '@/components/errors/error-boundary';
import { FullPageSpinner } from '@/components/ui/spinner';
import { LandingPage } from '@/features/landing';

/**
 * Route-level code splitting: only the landing page is in the entry chunk (a fast first visit); every
 * other page, the guards and the signed-in layout load on demand.
 */
function lazyNamed<M, K extends keyof M>(load: () => Promise<M>, name: K) {
  return lazy(async () => ({ default: (await load())[name] as ComponentType<Record<string, unknown>> }));
}

const auth = () => import('@/features/auth');
const AuthPage = lazyNamed(auth, 'AuthPage');
const AuthCallbackPage = lazyNamed(auth, 'AuthCallbackPage');
const ForgotPasswordPage = lazyNamed(auth, 'ForgotPasswordPage');
const VerifyOtpPage = lazyNamed(auth, 'VerifyOtpPage');
const ResetPasswordPage = lazyNamed(auth, 'ResetPasswordPage');
const RequireAuth = lazyNamed(auth, 'RequireAuth');
const RequireRole = lazy(async () => ({ default: (await auth()).RequireRole }));
const RequireSeller = lazyNamed(auth, 'RequireSeller');
const legal = () => import('@/features/legal');
const PrivacyPolicyPage = lazyNamed(legal, 'PrivacyPolicyPage');
const TermsOfServicePage = lazyNamed(legal, 'TermsOfServicePage');
const CookiePolicyPage = lazyNamed(legal, 'CookiePolicyPage');
const NotFoundPage = lazyNamed(() => import('@/features/misc'), 'NotFoundPage');
const AppLayout = lazyNamed(() => import('./layouts/app-layout'), 'AppLayout');
const DashboardPage = lazyNamed(() => import('@/features/dashboard'), 'DashboardPage');
const UploadPage = lazyNamed(() => import('@/features/upload'), 'UploadPage');
const PhotosPage = lazyNamed(() => import('@/features/photos'), 'PhotosPage');
const OrdersPage = lazyNamed(() => import('@/features/orders'), 'OrdersPage');
const CreditsPage = lazyNamed(() => import('@/features/credits'), 'CreditsPage');
const ProfilePage = lazyNamed(() => import('@/features/profile'), 'ProfilePage');
const DevelopersPage = lazyNamed(() => import('@/features/developers'), 'DevelopersPage');
const staff = () => import('@/features/staff');
const GraphicsDashboardPage = lazyNamed(staff, 'GraphicsDashboardPage');
const AdminDashboardPage = lazyNamed(staff, 'AdminDashboardPage');

/** `/login` → `/auth` with the same query: one sign-in page. */
function LoginAlias() {
  const { search } = useLocation();
  return <Navigate to={`/auth${search}`} replace />;
}

const loading = (element: ReactNode) => <Suspense fallback={<FullPageSpinner />}>{element}</Suspense>;
const guarded = (name: string, element: ReactNode) => <ErrorBoundary name={name}>{loading(element)}</ErrorBoundary>;

const publicRoutes: RouteObject[] = [
  { path: '/', element: <LandingPage /> },
  { path: '/home', element: <Navigate to="/" replace /> },
  { path: '/auth', element: <AuthPage /> },
  // the address people type: the same page as /auth, its query kept (e.g. ?from=free-trial)
  { path: '/login', element: <LoginAlias /> },
  { path: '/auth/callback', element: <AuthCallbackPage /> },
  { path: '/forgot-password', element: <ForgotPasswordPage /> },
  { path: '/verify-otp', element: <VerifyOtpPage /> },
  { path: '/reset-password', element: <ResetPasswordPage /> },
  { path: '/privacy-policy', element: <PrivacyPolicyPage /> },
  { path: '/terms-of-service', element: <TermsOfServicePage /> },
  { path: '/cookie-policy', element: <CookiePolicyPage /> },
].map((r) => ({ ...r, element: guarded(r.path, r.element) }));

export const routes: RouteObject[] = [
  ...publicRoutes,
  {
    element: loading(<RequireAuth />),
    children: [
      {
        element: loading(<AppLayout />),
        children: [
          {
            // the seller's pages: not for designers (SPEC §2 menus; the server refuses them too)
            element: loading(<RequireSeller />),
            children: [
              { path: '/dashboard', element: loading(<DashboardPage />) },
              { path: '/upload', element: loading(<UploadPage />) },
              { path: '/photos', element: loading(<PhotosPage />) },
              { path: '/orders', element: loading(<OrdersPage />) },
              { path: '/credits', element: loading(<CreditsPage />) },
              { path: '/developers', element: loading(<DevelopersPage />) },
            ],
          },
          { path: '/profile', element: loading(<ProfilePage />) },
          {
            // DESIGN decision: graphic and admin (the admin menu links here).
            path: '/graphics-dashboard',
            element: loading(
              <RequireRole allow={['graphic', 'admin']} variant="graphics">
                <GraphicsDashboardPage />
              </RequireRole>,
            ),
          },
          {
            path: '/admin-dashboard',
            element: loading(
              <RequireRole allow={['admin']} variant="admin">
                <AdminDashboardPage />
              </RequireRole>,
            ),
          },
        ],
      },
    ],
  },
  { path: '*', element: guarded('not-found', <NotFoundPage />) },
];

export const router = createBrowserRouter(routes);
