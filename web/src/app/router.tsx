import { createBrowserRouter, Navigate, type RouteObject } from 'react-router-dom';
import { ErrorBoundary } from '@/components/errors/error-boundary';
import {
  AuthCallbackPage,
  AuthPage,
  ForgotPasswordPage,
  ResetPasswordPage,
  VerifyOtpPage,
} from '@/features/auth';
import { LandingPage } from '@/features/landing/landing-page';
import { CookiePolicyPage, PrivacyPolicyPage, TermsOfServicePage } from '@/features/legal/legal-pages';
import { NotFoundPage } from '@/features/misc/not-found-page';

export const routes: RouteObject[] = [
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
  { path: '*', element: <NotFoundPage /> },
].map((r) => ({ ...r, element: <ErrorBoundary name={r.path}>{r.element}</ErrorBoundary> }));

export const router = createBrowserRouter(routes);
