import { createBrowserRouter, Navigate, type RouteObject } from 'react-router-dom';
import { ErrorBoundary } from '@/components/errors/error-boundary';
import {
  AuthCallbackPage,
  AuthPage,
  ForgotPasswordPage,
  ResetPasswordPage,
  VerifyOtpPage,
} from '@/features/auth';
import { NotFoundPage } from '@/features/misc/not-found-page';

function Home() {
  return (
    <main className="full-page-center">
      <h1>FotoPronta</h1>
    </main>
  );
}

export const routes: RouteObject[] = [
  { path: '/', element: <Home /> },
  { path: '/home', element: <Navigate to="/" replace /> },
  { path: '/auth', element: <AuthPage /> },
  { path: '/auth/callback', element: <AuthCallbackPage /> },
  { path: '/forgot-password', element: <ForgotPasswordPage /> },
  { path: '/verify-otp', element: <VerifyOtpPage /> },
  { path: '/reset-password', element: <ResetPasswordPage /> },
  { path: '*', element: <NotFoundPage /> },
].map((r) => ({ ...r, element: <ErrorBoundary name={r.path}>{r.element}</ErrorBoundary> }));

export const router = createBrowserRouter(routes);
