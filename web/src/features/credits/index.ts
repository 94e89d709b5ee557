export { CreditsPage } from './routes/credits-page';
