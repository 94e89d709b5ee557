export { LandingPage } from './routes/landing-page';
