export { CookiePolicyPage, PrivacyPolicyPage, TermsOfServicePage } from './routes/legal-pages';
