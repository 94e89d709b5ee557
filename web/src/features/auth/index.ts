export { AccessDenied } from './components/access-denied';
export { RedirectIfSignedIn, RequireAuth, RequireRole, RequireSeller } from './components/guards';
export { AuthCallbackPage } from './routes/auth-callback-page';
export { AuthPage } from './routes/auth-page';
export { ForgotPasswordPage } from './routes/forgot-password-page';
export { ResetPasswordPage } from './routes/reset-password-page';
export { VerifyOtpPage } from './routes/verify-otp-page';
