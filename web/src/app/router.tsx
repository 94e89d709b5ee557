import type { ReactNode } from 'react';
import { createBrowserRouter, Navigate, type RouteObject } from 'react-router-dom';
import { ErrorBoundary } from '@/components/errors/error-boundary';
import {
  AuthCallbackPage,
  AuthPage,
  ForgotPasswordPage,
  RequireAuth,
  RequireRole,
  ResetPasswordPage,
  VerifyOtpPage,
} from '@/features/auth';
import { CreditsPage } from '@/features/credits/credits-page';
import { DashboardPage } from '@/features/dashboard/dashboard-page';
import { LandingPage } from '@/features/landing/landing-page';
import { CookiePolicyPage, PrivacyPolicyPage, TermsOfServicePage } from '@/features/legal/legal-pages';
import { NotFoundPage } from '@/features/misc/not-found-page';
import { OrdersPage } from '@/features/orders/orders-page';
import { PhotosPage } from '@/features/photos/photos-page';
import { ProfilePage } from '@/features/profile/profile-page';
import { AdminDashboardPage, GraphicsDashboardPage } from '@/features/staff/staff-pages';
import { UploadPage } from '@/features/upload/upload-page';
import { AppLayout } from './layouts/app-layout';

const guarded = (name: string, element: ReactNode) => <ErrorBoundary name={name}>{element}</ErrorBoundary>;

const publicRoutes: RouteObject[] = [
  { path: '/', element: <LandingPage /> },
  { path: '/home', element: <Navigate to="/" replace /> },
  { path: '/auth', element: <AuthPage /> },
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
    element: <RequireAuth />,
    children: [
      {
        element: <AppLayout />,
        children: [
          { path: '/dashboard', element: <DashboardPage /> },
          { path: '/upload', element: <UploadPage /> },
          { path: '/photos', element: <PhotosPage /> },
          { path: '/orders', element: <OrdersPage /> },
          { path: '/credits', element: <CreditsPage /> },
          { path: '/profile', element: <ProfilePage /> },
          {
            // DESIGN decision: graphic and admin (the admin menu links here).
            path: '/graphics-dashboard',
            element: (
              <RequireRole allow={['graphic', 'admin']} variant="graphics">
                <GraphicsDashboardPage />
              </RequireRole>
            ),
          },
          {
            path: '/admin-dashboard',
            element: (
              <RequireRole allow={['admin']} variant="admin">
                <AdminDashboardPage />
              </RequireRole>
            ),
          },
        ],
      },
    ],
  },
  { path: '*', element: guarded('not-found', <NotFoundPage />) },
];

export const router = createBrowserRouter(routes);
